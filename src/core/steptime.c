#include "steptime.h"

#include <math.h>
#include <stdbool.h>

double step_expert_share(uint32_t experts, uint32_t experts_per_token, double tokens)
{
    if (experts == 0 || tokens <= 0)
        return experts == 0 ? 1.0 : 0.0;
    double k = (double)experts_per_token / (double)experts;
    if (k >= 1.0)
        return 1.0;
    return 1.0 - pow(1.0 - k, tokens);
}

double step_attended(double ctx, double w)
{
    return w > 0 && ctx > w ? w : ctx;
}

/* Sum over the t query tokens of a chunk that starts after ctx tokens of
 * min(position, w): token j (1..t) attends to ctx + j tokens, at most w
 * (w 0: no limit). */
static double attended_sum(double ctx, double t, double w)
{
    if (w <= 0 || ctx + t <= w)
        return t * ctx + t * (t + 1.0) / 2.0;
    if (ctx >= w)
        return t * w;
    double under = w - ctx; /* tokens before the window is full */
    return under * ctx + under * (under + 1.0) / 2.0 + (t - under) * w;
}

/* The bytes and flops of one sequence's share of the step, added to out. */
static void add_sequence(const struct step_model *m, const struct step_seq *q,
                         struct step_time *out)
{
    double ctx = (double)q->context, t = (double)q->tokens;
    double w = (double)m->window;
    /* the cache before the step is read once (sparse attention reads its
     * share), less the shared prefix, read once for all; a windowed layer
     * holds the last w tokens, the prefix's part of them shared */
    double shared = (double)m->shared_tokens < ctx ? (double)m->shared_tokens : ctx;
    double held = step_attended(ctx, w), start = ctx - held;
    double shared_held = shared > start ? shared - start : 0;
    double read = m->kv_bytes_global * (ctx - shared) * m->kv_read_share +
                  m->kv_bytes_windowed * (held - shared_held);
    if (q->tokens == 1)
        out->kv_read_bytes += read; /* a decode's attention reads it */
    out->kv_bytes += read + (m->kv_bytes_global + m->kv_bytes_windowed) * t;
    /* a recurrent layer reads its state and writes it back, each step */
    out->state_bytes += 2.0 * m->state_bytes;
    /* the part of the cache and state in host memory (llama.cpp's CPU
     * layers, --no-kv-offload), the prefix there held by each sequence */
    out->host_bytes += m->host_kv_global * ctx * m->kv_read_share + m->host_kv_windowed * held +
                       (m->host_kv_global + m->host_kv_windowed) * t + 2.0 * m->host_state_bytes;
    bool decode = q->tokens == 1;
    /* each sum only where its layers are: most models have one kind */
    double full = decode ? ctx + 1.0 : attended_sum(ctx, t, 0);
    double global = m->attn_topk > 0 ? attended_sum(ctx, t, m->attn_topk) : full;
    double cg = decode ? m->attn_decode_global : m->attn_prefill_global;
    double cw = decode ? m->attn_decode_windowed : m->attn_prefill_windowed;
    out->attention_flops += cg * global + m->index_flops * full;
    if (cw != 0)
        out->attention_flops += cw * attended_sum(ctx, t, w);
    out->tokens += t;
}

static double ring_seconds(const struct step_model *m, const struct step_machine *hw,
                           double tokens)
{
    if (m->tp <= 1 || m->allreduces <= 0)
        return 0;
    double bytes = tokens * m->hidden * 2.0;
    double per = hw->link_bytes_per_s > 0
                     ? 2.0 * (m->tp - 1) / m->tp * bytes / hw->link_bytes_per_s
                     : 0;
    return m->allreduces * (per + hw->link_latency_s);
}

/* The expert-parallel all-to-alls of a step: each MoE layer dispatches
 * the hidden states of the step's tokens over every rank to the experts and
 * combines the results back, a latency each; a rank moves a2a_copies of the
 * global tokens each way (a ring all-gather: (R - 1) / R of them), at the
 * link's speed, sending and receiving at once. */
static double a2a_seconds(const struct step_model *m, const struct step_machine *hw,
                          double global, struct step_time *st)
{
    if (m->a2a_copies <= 0 || m->a2a_layers == 0)
        return 0;
    double layer = global * m->a2a_copies * m->a2a_bytes;
    st->a2a_bytes = layer * m->a2a_layers;
    double per = hw->a2a_bytes_per_s > 0 ? layer / hw->a2a_bytes_per_s : 0;
    return m->a2a_layers * (per + 2.0 * hw->a2a_latency_s);
}

/* The host layers' cache a step past host_offload_batch copies to the GPU
 * (and writes back): llama.cpp's attention of a CPU layer then runs on the
 * GPU too. ggml-backend.cpp at ggml-org/llama.cpp 0054c01 (ggml_backend_sched_split_graph):
 * pass 1 (ggml_backend_sched_backend_id_from_cur) sends an op to the GPU
 * for a source in a GGML_BACKEND_BUFFER_USAGE_WEIGHTS buffer only, which the
 * cache's buffers (llama-kv-cache.cpp, ggml_backend_alloc_ctx_tensors_from_buft)
 * are not, so the cache's views stay on the CPU ("1.vsrc") and so do the
 * stores into it; pass 2 spreads the GPU over the unassigned ops between
 * the offloaded matmuls, the attention among them; pass 5 copies each input
 * of a GPU split that sits in another backend's buffer: the K and V views.
 * Each micro-batch of host_ubatch tokens builds its own graph over the cells
 * so far (its own included), so a sequence's views are copied once a
 * micro-batch, growing, and its new tokens' K and V written back once. */
static double copied_views(const struct step_model *m, const struct step_machine *hw,
                           const struct step_seq *seqs, size_t n)
{
    double bytes = 0, w = (double)m->window;
    /* no layer's cache in host memory (every plan but llama.cpp's -ngl or
     * --no-kv-offload): nothing copied, and no walk of the batch a step */
    if (m->host_kv_global <= 0 && m->host_kv_windowed <= 0 && m->host_state_bytes <= 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        double ctx = (double)seqs[i].context, t = (double)seqs[i].tokens;
        double ub = hw->host_ubatch > 0 && hw->host_ubatch < t ? hw->host_ubatch : t;
        double chunks = t > 0 ? ceil(t / ub) : 0;
        /* the views: ctx + j x ub cells after chunk j, ctx + t after the last */
        double cells = chunks * ctx + ub * (chunks - 1) * chunks / 2 + t;
        bytes += m->host_kv_global * cells;
        for (double j = 1; m->host_kv_windowed > 0 && j <= chunks; j++) {
            double c = ctx + (j < chunks ? j * ub : t);
            bytes += m->host_kv_windowed * (w > 0 && w < c ? w : c);
        }
        bytes += (m->host_kv_global + m->host_kv_windowed) * t + 2.0 * m->host_state_bytes;
    }
    return bytes;
}

/* The host's part of a step (llama.cpp's layers or experts in host memory):
 * a small batch computes there, reading them at the host's bandwidth, in
 * turn with the GPU's layers; a batch of at least host_offload_batch tokens
 * has the GPU compute them (its flops already counted) after copying their
 * weights over the host link once a micro-batch (ggml-backend.cpp:
 * ggml_backend_sched_backend_id_from_cur gives an op on host weights to the
 * first backend whose offload_op wants it, CUDA's from a batch of 32;
 * ggml_backend_sched_compute_splits copies the weights in before each
 * split runs, of a MUL_MAT_ID's experts only those its ids use). */
static void host_seconds(const struct step_model *m, const struct step_machine *hw, double seen,
                         double share, double views, struct step_time *st)
{
    double weights = m->host_dense_bytes + m->host_expert_bytes * (m->experts ? share : 1.0);
    if (hw->host_bytes_per_s <= 0 || weights + st->host_bytes <= 0) {
        st->host_bytes = st->host_s = 0;
        return;
    }
    /* the graph ggml offloads for is a micro-batch's: a --ubatch below 32
     * never reaches the GPU (ggml_backend_cuda_device_offload_op) */
    double ub = hw->host_ubatch > 0 && hw->host_ubatch < seen ? hw->host_ubatch : seen;
    double full = ub > 0 ? floor(seen / ub) : 0, rest = seen - full * ub;
    double batches = full + (rest > 0 ? 1 : 0);
    double experts = full * step_expert_share(m->experts, m->experts_per_token, ub) +
                     (rest > 0 ? step_expert_share(m->experts, m->experts_per_token, rest) : 0);
    if (hw->host_offload_batch > 0 && ub >= hw->host_offload_batch &&
        hw->host_link_bytes_per_s > 0) {
        /* each micro-batch copies the host layers again, of their experts
         * those its tokens use (nearly all of them at 512 tokens) */
        /* the cache's views once a micro-batch (copied_views), not once a step */
        st->host_bytes = views + m->host_dense_bytes * batches + m->host_expert_bytes * experts;
        st->host_s = st->host_bytes / hw->host_link_bytes_per_s;
        st->host_copied = 1;
        return;
    }
    /* the CPU computes its layers, reading their weights once a micro-batch
     * as a decode step does (each micro-batch is a graph of its own); its
     * compute is not counted (no CPU FLOP rate in the presets): a floor */
    if (batches > 1) /* the cache's views too, once a micro-batch (copied_views) */
        st->host_bytes = views + m->host_dense_bytes * batches + m->host_expert_bytes * experts;
    else
        st->host_bytes += weights;
    double mbu = hw->host_mbu > 0 ? hw->host_mbu : 1.0;
    st->host_s = st->host_bytes / (hw->host_bytes_per_s * mbu);
}

static double step_finish(const struct step_model *m, const struct step_machine *hw, double views,
                          struct step_time st, struct step_time *out);

/* A step over `copies` sequences like `alike` and the n in seqs: the
 * first's share times copies, then the others' added; one loop, so that
 * add_sequence stays inlined in it. */
static double step_core(const struct step_model *m, const struct step_machine *hw,
                        const struct step_seq *alike, uint64_t copies, const struct step_seq *seqs,
                        size_t n, struct step_time *out)
{
    struct step_time st = {0};
    if (hw->bytes_per_s <= 0 || copies + n == 0) {
        if (out)
            *out = st;
        return 0;
    }
    const struct step_seq *from[2] = {alike, seqs};
    size_t len[2] = {copies ? 1 : 0, n};
    for (int part = 0; part < 2; part++) {
        for (size_t i = 0; i < len[part]; i++)
            add_sequence(m, &from[part][i], &st);
        if (part == 0 && copies > 1) {
            double k = (double)copies;
            st.kv_read_bytes *= k;
            st.kv_bytes *= k;
            st.state_bytes *= k;
            st.host_bytes *= k;
            st.attention_flops *= k;
            st.tokens *= k;
        }
    }
    double views = copied_views(m, hw, seqs, n);
    if (copies)
        views += copied_views(m, hw, alike, 1) * (double)copies;
    return step_finish(m, hw, views, st, out);
}

double step_time(const struct step_model *m, const struct step_machine *hw,
                 const struct step_seq *seqs, size_t n, struct step_time *out)
{
    return step_core(m, hw, NULL, 0, seqs, n, out);
}

double step_time_alike(const struct step_model *m, const struct step_machine *hw,
                       const struct step_seq *alike, uint64_t copies, const struct step_seq *seqs,
                       size_t n, struct step_time *out)
{
    return step_core(m, hw, alike, copies, seqs, n, out);
}

/* The step from its sequences' shares in st: the weights, the reads and the
 * compute, the communication, the overheads. */
static double step_finish(const struct step_model *m, const struct step_machine *hw, double views,
                          struct step_time st, struct step_time *out)
{
    st.kv_bytes += m->shared_bytes;
    st.kv_read_bytes += m->shared_bytes;
    double scale = m->token_scale > 1 ? m->token_scale : 1;
    double seen = st.tokens * scale; /* what the GEMMs and all-reduces carry */
    /* the experts here serve every DP rank's tokens (ep_scale) */
    double global = seen * (m->ep_scale > 1 ? m->ep_scale : 1);
    double share = step_expert_share(m->experts, m->experts_per_token, global);
    if (m->experts) {
        st.experts_touched = share * m->experts;
        st.tokens_per_expert = st.experts_touched > 0
                                   ? global * m->experts_per_token / st.experts_touched
                                   : 0;
    }
    double expert_read = m->expert_bytes * (m->experts ? share : 0);
    st.expert_read_bytes = expert_read;
    st.weights_bytes = m->dense_bytes + expert_read;
    st.bytes = st.weights_bytes + st.kv_bytes + st.state_bytes;
    /* the routed experts compute every rank's tokens routed here: a prompt
     * on one rank spreads its expert GEMMs over every GPU holding experts */
    st.gemm_flops = m->flops_per_token * seen + m->expert_flops_per_token * global;
    st.flops = st.gemm_flops + st.attention_flops;

    double bw = hw->bytes_per_s * hw->mbu;
    double moe = hw->moe_mbu > 0 ? hw->moe_mbu : 1.0;
    st.weights_s = m->dense_bytes / bw + expert_read / (bw * moe);
    /* the attention kernels read the cache at their own reach; the new
     * tokens' KV is written at the weights' */
    double attn = hw->attn_mbu > 0 ? hw->attn_mbu : 1.0;
    st.kv_s = attn == 1.0 ? st.kv_bytes / bw
                          : (st.kv_bytes - st.kv_read_bytes) / bw + st.kv_read_bytes / (bw * attn);
    st.state_s = st.state_bytes / bw;
    st.memory_s = st.weights_s + st.kv_s + st.state_s;
    if (hw->flops_per_s > 0) {
        double fl = hw->flops_per_s * hw->mfu;
        double fa = hw->attn_flops_per_s > 0 ? hw->attn_flops_per_s * hw->mfu : fl;
        st.gemm_s = st.gemm_flops / fl;
        st.attention_s = st.attention_flops / fa;
        st.compute_s = st.gemm_s + st.attention_s;
    }
    st.a2a_s = a2a_seconds(m, hw, global, &st);
    st.comm_s = ring_seconds(m, hw, seen) + st.a2a_s;
    /* a fine-grained MoE layer adds kernels that do not overlap the reads:
     * routing, top-k, the grouped GEMM's launch and gather */
    st.moe_s = m->moe_layers * hw->moe_layer_overhead_s;
    host_seconds(m, hw, seen, share, views, &st);
    double stages = m->stages ? m->stages : 1;
    double busy = st.memory_s > st.compute_s ? st.memory_s : st.compute_s;
    st.stage_s = busy + st.moe_s + st.comm_s;
    /* the fixed part: the engine's own, and each layer's kernel dispatch
     * where the backend pays it (every stage's layers, in turn) */
    st.overhead_s = hw->step_overhead_s + m->layers * hw->layer_overhead_s * stages;
    /* the host's part runs once a step, not once a stage: a layer split's
     * GPUs hold the GPU layers between them, the CPU layers are the host's
     * alone (and their copies go to the first GPU, the highest-priority
     * backend that asks for the op) */
    /* each stage but the last sends the batch's activations to the next,
     * point to point, before that one can start */
    if (stages > 1 && hw->stage_bytes_per_s > 0)
        st.send_s = (stages - 1) * (hw->stage_latency_s +
                                    seen * m->stage_send_bytes / hw->stage_bytes_per_s);
    st.total_s = st.stage_s * stages + st.send_s + st.host_s + st.overhead_s;
    if (out)
        *out = st;
    return st.total_s;
}
