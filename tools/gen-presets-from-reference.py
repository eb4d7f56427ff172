"""gen-presets-from-reference: the one-off that wrote presets/ from
../shared/reference/{models,gpus}.json (ids, memory basis, sources). The
presets are the maintained data now; rerunning overwrites hand edits."""
import json, re, os
repo=os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
ref=os.path.join(repo, '..', 'shared', 'reference')
M=json.load(open(f'{ref}/models.json')); G=json.load(open(f'{ref}/gpus.json'))
out=os.path.join(repo, 'presets')
model_ids={
'Llama 2 7B':'llama-2-7b','Llama 2 13B':'llama-2-13b','Llama 2 70B':'llama-2-70b','Llama 3 8B':'llama-3-8b','Llama 3 70B':'llama-3-70b',
'Llama 3.1 8B':'llama-3.1-8b','Llama 3.1 70B':'llama-3.1-70b','Llama 3.1 405B':'llama-3.1-405b','Llama 3.2 1B':'llama-3.2-1b','Llama 3.2 3B':'llama-3.2-3b',
'Llama 3.3 70B':'llama-3.3-70b','Llama 4 Scout 17B-16E':'llama-4-scout','Llama 4 Maverick 17B-128E':'llama-4-maverick','Mistral 7B v0.1':'mistral-7b-v0.1',
'Mistral 7B v0.3':'mistral-7b-v0.3','Mixtral 8x7B':'mixtral-8x7b','Mixtral 8x22B':'mixtral-8x22b','Mistral Nemo 12B':'mistral-nemo-12b','Mistral Small 24B':'mistral-small-24b',
'Qwen2.5 0.5B':'qwen2.5-0.5b','Qwen2.5 7B':'qwen2.5-7b','Qwen2.5 14B':'qwen2.5-14b','Qwen2.5 32B':'qwen2.5-32b','Qwen2.5 72B':'qwen2.5-72b','Qwen3 8B':'qwen3-8b',
'Qwen3 32B':'qwen3-32b','Qwen3 30B-A3B':'qwen3-30b-a3b','Qwen3 235B-A22B':'qwen3-235b-a22b','Gemma 2 9B':'gemma-2-9b','Gemma 2 27B':'gemma-2-27b','Gemma 3 4B':'gemma-3-4b',
'Gemma 3 12B':'gemma-3-12b','Gemma 3 27B':'gemma-3-27b','Phi-3 mini (4k)':'phi-3-mini-4k','Phi-3 medium (4k)':'phi-3-medium-4k','Phi-4':'phi-4','DeepSeek-V2-Lite':'deepseek-v2-lite',
'DeepSeek-V3 / R1':'deepseek-v3','Falcon 7B':'falcon-7b','Falcon 40B':'falcon-40b','GPT-OSS 20B':'gpt-oss-20b','GPT-OSS 120B':'gpt-oss-120b','Command R (v01)':'command-r-v01',
'Yi 34B':'yi-34b','OPT-13B':'opt-13b','OPT-30B':'opt-30b','MPT-7B':'mpt-7b'}
patterns={'mistral-7b-v0.1':'every layer','gemma-2-9b':'alternating local/global','gemma-2-27b':'alternating local/global',
'gemma-3-4b':'5 local : 1 global','gemma-3-12b':'5 local : 1 global','gemma-3-27b':'5 local : 1 global',
'gpt-oss-20b':'alternating sliding/full','gpt-oss-120b':'alternating sliding/full',
'llama-4-scout':'3 chunked : 1 global','llama-4-maverick':'3 chunked : 1 global'}
GIB=2**30
def dt(s):
    s=(s or '').lower()
    if s.startswith('float16'): return 'fp16'
    if s.startswith('float32'): return 'fp32'
    return 'bf16'
def attn(s):
    for k in ['MLA','MQA','MHA','GQA']:
        if s.startswith(k): return k
    raise Exception(s)
def short(src, n=500):
    return src if len(src)<=n else src[:n-3]+'...'
for r in M:
    mid=model_ids[r['name']]
    a=attn(r['attention'])
    o={'format':'kvplan-model','format_version':1,'id':mid,'name':r['name'],'hf_id':r.get('hf_id','').split(' ')[0],
       'attention':a,'num_layers':r['num_hidden_layers'],'hidden_size':r['hidden_size'],'num_attention_heads':r['num_attention_heads']}
    if a=='MLA':
        o['mla']={'kv_lora_rank':r['mla']['kv_lora_rank'],'qk_rope_head_dim':r['mla']['qk_rope_head_dim'],
                  'qk_nope_head_dim':r['mla']['qk_nope_head_dim'],'v_head_dim':r['mla']['v_head_dim']}
    else:
        o['num_kv_heads']=r['num_key_value_heads']; o['head_dim']=r['head_dim']
    sw=None
    if r.get('sliding_window') and mid in patterns:
        sw={'window_tokens':r['sliding_window'],'windowed_layers':r['num_windowed_layers'],'pattern':patterns[mid]}
    o['sliding_window']=sw
    o['params']=r['params_computed']
    if r.get('active_params_computed'): o['active_params']=r['active_params_computed']
    wd=dt(r.get('torch_dtype'))
    if mid=='deepseek-v3': wd='fp8'
    o['weight_dtype']=wd
    if mid=='gpt-oss-20b': o['weights_bytes']=13761264768  # MXFP4 experts, as import-hf computes
    if mid=='gpt-oss-120b': o['weights_bytes']=65248815744
    o['max_context_tokens']=r['max_position_embeddings']
    o['vocab_size']=r['vocab_size']
    if r.get('intermediate_size'): o['intermediate_size']=r['intermediate_size']
    src=r['source']
    note=''
    if mid.startswith('phi-3'): note=' Config sliding_window 2047 left out: kernels disagree on honouring it; planned as full attention up to 4096 tokens.'
    if mid.startswith('gpt-oss'): note=' weights_bytes: MXFP4 experts, checkpoint size on disk.'
    if mid=='deepseek-v3': note=' Weights ship in FP8 (block-scaled).'
    o['source']=short(src+note, 500)
    json.dump(o, open(f'{out}/models/{mid}.json','w'), indent=2); open(f'{out}/models/{mid}.json','a').write('\n')
gpu_ids={
'NVIDIA H100 SXM5 80GB':'h100-sxm','NVIDIA H100 PCIe 80GB':'h100-pcie','NVIDIA H100 NVL 94GB':'h100-nvl','NVIDIA H200 SXM 141GB':'h200','NVIDIA H200 NVL 141GB':'h200-nvl',
'NVIDIA GH200 Grace Hopper (96GB HBM3)':'gh200-96gb','NVIDIA GH200 Grace Hopper (144GB HBM3e)':'gh200-144gb','NVIDIA B200 (HGX/DGX, 180GB)':'b200',
'NVIDIA B300 (HGX, Blackwell Ultra, 288GB)':'b300','NVIDIA GB200 (per Blackwell GPU in NVL72)':'gb200','NVIDIA A100 SXM4 40GB':'a100-40gb','NVIDIA A100 SXM4 80GB':'a100-80gb',
'NVIDIA A100 PCIe 40GB':'a100-pcie-40gb','NVIDIA A100 PCIe 80GB':'a100-pcie-80gb','NVIDIA A10G (AWS)':'a10g','NVIDIA A10':'a10','NVIDIA L4':'l4','NVIDIA L40S':'l40s','NVIDIA L40':'l40',
'NVIDIA T4':'t4','NVIDIA V100 SXM2 16GB':'v100-16gb','NVIDIA V100 SXM2 32GB':'v100-32gb','NVIDIA GeForce RTX 4090':'rtx-4090','NVIDIA GeForce RTX 5090':'rtx-5090',
'NVIDIA GeForce RTX 3090':'rtx-3090','NVIDIA RTX 6000 Ada Generation':'rtx-6000-ada','NVIDIA RTX PRO 6000 Blackwell Workstation Edition':'rtx-pro-6000',
'AMD Instinct MI300X':'mi300x','AMD Instinct MI325X':'mi325x','AMD Instinct MI355X':'mi355x','AMD Instinct MI250X':'mi250x-gcd','Intel Gaudi 2':'gaudi2',
'Intel Gaudi 3 (HL-325L OAM)':'gaudi3','Google TPU v5e':'tpu-v5e','Google TPU v5p':'tpu-v5p','Google TPU v6e (Trillium)':'tpu-v6e','Apple M2 Ultra':'apple-m2-ultra',
'Apple M3 Max':'apple-m3-max','Apple M4 Max':'apple-m4-max'}
same={'a100-pcie-80gb':('a100-80gb',81920*2**20),'a100-pcie-40gb':('a100-40gb',40960*2**20),'l40':('l40s',46068*2**20),'h200-nvl':('h200',143771*2**20)}
for r in G:
    gid=gpu_ids[r['name']]
    mem=r.get('driver_reported_bytes'); label=f"{r['memory_gb_marketed']} GB"
    if mem:
        basis=f"driver total, {r['driver_reported_mib']:,} MiB in nvidia-smi"
        if gid=='mi300x': basis='driver total, derived from 8 CPX partitions of 25,767,706,624 B'
    elif gid in same:
        mem=same[gid][1]; basis=f"driver total of the same memory as {same[gid][0]} ({mem//2**20:,} MiB)"
    elif gid=='mi250x-gcd':
        mem=64*GIB; label='64 GB per GCD (128 GB package)'; basis='estimate: one GCD, 64 GiB (ROCm shows each GCD as a device)'
    else:
        mem=r['memory_gb_marketed']*GIB; basis=f"estimate: marketed {r['memory_gb_marketed']} GB taken as GiB (no driver reading found)"
    bw=r['mem_bandwidth_tbps']
    if gid=='mi250x-gcd': bw=1.6384
    o={'format':'kvplan-gpu','format_version':1,'id':gid,'name':r['name'] if gid!='mi250x-gcd' else 'AMD Instinct MI250X (one GCD)','vendor':r['vendor'],
       'memory_bytes':mem,'memory_label':label,'memory_basis':basis,'bandwidth_bytes_per_s':int(round(bw*1e12)),'fp8':bool(r.get('fp8_supported')),
       'price_usd_per_hour':r.get('price_usd_per_gpu_hr'),
       **({'cuda_visible_bytes':int(round(r['cuda_visible_total_gib_observed']*2**30))} if r.get('cuda_visible_total_gib_observed') else {}),'price_date':r.get('price_date') or '',
       'source':short(r['source']+(f"; memory: {r['driver_source']}" if r.get('driver_source') else ''),500)}
    json.dump(o, open(f'{out}/gpus/{gid}.json','w'), indent=2); open(f'{out}/gpus/{gid}.json','a').write('\n')
print(len(M),len(G))
