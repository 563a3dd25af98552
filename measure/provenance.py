"""Where a stored measurement comes from: date, command, versions and device."""

import datetime
import platform
import subprocess

import torch


def environment(command, **versions):
    """The record stored beside a measurement; `versions` adds other packages'."""
    info = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(
            timespec="seconds"
        ),
        "command": command,
        "python": platform.python_version(),
        "torch": torch.__version__,
        **versions,
    }
    if torch.cuda.is_available():
        props = torch.cuda.get_device_properties(0)
        info.update(
            device=props.name,
            multiprocessors=props.multi_processor_count,
            memory_GiB=round(props.total_memory / 2**30, 1),
            cuda=torch.version.cuda,
        )
        try:
            info["driver"] = subprocess.run(
                ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                capture_output=True, text=True, check=True,
            ).stdout.strip()  # fmt: skip
        except (OSError, subprocess.CalledProcessError) as err:
            info["driver"] = f"unknown ({err})"
    return info
