"""What the import-hf hardening tests share: a config written to a folder and
imported, giving the exit status, the preset (when it succeeded) and stderr."""
import json
import os
import subprocess


def import_hf(kvplan, env, folder, name, cfg):
    path = os.path.join(folder, name + ".json")
    with open(path, "w") as f:
        json.dump(cfg, f, indent=1)
    r = subprocess.run([kvplan, "import-hf", path], capture_output=True, text=True, env=env,
                       timeout=30)
    return r.returncode, (json.loads(r.stdout) if r.returncode == 0 else None), r.stderr
