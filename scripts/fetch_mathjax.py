"""Put MathJax into _build/vendor/mathjax so the book typesets math with no network.

It comes from the npm package (`npm pack`, which checks the registry's integrity hash);
the top-level `tex-chtml.js` bundle and the folders it loads from at run time are kept.
A no-op when the pinned version is already in place.
"""
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

VERSION = "3.2.2"
TARGET = Path(__file__).resolve().parent.parent / "_build" / "vendor" / "mathjax"
STAMP = TARGET / "VERSION"


def main():
    if STAMP.is_file() and STAMP.read_text().strip() == VERSION:
        return
    if shutil.which("npm") is None:
        sys.exit("fetch_mathjax: the npm client is needed once to fetch MathJax "
                 f"(mathjax@{VERSION}); install Node.js/npm and run `make book` again.")
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["npm", "pack", f"mathjax@{VERSION}", "--silent"], cwd=tmp, check=True,
                       stdout=subprocess.DEVNULL)
        with tarfile.open(Path(tmp) / f"mathjax-{VERSION}.tgz") as tar:
            tar.extractall(tmp, filter="data")
        es5 = Path(tmp) / "package" / "es5"
        shutil.rmtree(TARGET, ignore_errors=True)
        TARGET.mkdir(parents=True)
        shutil.copy2(es5 / "tex-chtml.js", TARGET)
        for folder in (p for p in es5.iterdir() if p.is_dir()):
            shutil.copytree(folder, TARGET / folder.name)
    STAMP.write_text(VERSION + "\n")
    print(f"MathJax {VERSION} placed in {TARGET.relative_to(TARGET.parents[2])}")


if __name__ == "__main__":
    main()
