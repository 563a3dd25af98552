# The MNIST loader: the only code in this chapter that reads files or the network.
import gzip
import hashlib
import os
import tempfile
import urllib.request
from pathlib import Path

import numpy as np

# SHA-256 of each *uncompressed* IDX file, the same for every source.
MNIST_SHA256 = {
    "train-images-idx3-ubyte": (
        "ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db"
    ),
    "train-labels-idx1-ubyte": (
        "65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5"
    ),
    "t10k-images-idx3-ubyte": (
        "0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7"
    ),
    "t10k-labels-idx1-ubyte": (
        "ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2"
    ),
}
# Mirrors serving "<name>.gz": the S3 mirror torchvision uses, and Google's CVDF mirror.
MNIST_MIRRORS = [
    "https://ossci-datasets.s3.amazonaws.com/mnist/",
    "https://storage.googleapis.com/cvdf-datasets/mnist/",
]
MNIST_HOW_TO_FIX = (
    "How to fix: download the four files (.gz or uncompressed) by hand:\n"
    + "".join(f"    {MNIST_MIRRORS[0]}{name}.gz\n" for name in MNIST_SHA256)
    + f"  (or the same names under {MNIST_MIRRORS[1]}) and put them in the folder\n"
    "  data/mnist under the working directory, which is searched automatically\n"
    "  (in Colab: /content/data/mnist), or put them in any folder and point\n"
    "  MNIST_DIR at it: os.environ['MNIST_DIR'] = '/path/to/mnist' before calling\n"
    "  load_mnist(). In the book's repository, `make data` does this for you."
)


class MNISTError(RuntimeError):
    """MNIST could not be loaded; the message lists every source tried."""


def mnist_default_dirs():
    """Local folders to search, in order: $MNIST_DIR, then data/mnist under the
    working directory (./data/mnist; /content/data/mnist in Colab) and under its
    parent (the repository root when the notebook runs from notebooks/)."""
    dirs = []
    if os.environ.get("MNIST_DIR"):
        dirs.append(("$MNIST_DIR", Path(os.environ["MNIST_DIR"]).expanduser()))
    for base in dict.fromkeys([Path.cwd(), Path.cwd().parent]):
        dirs.append(("data/mnist", base / "data" / "mnist"))
    return dirs


def mnist_default_cache():
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "normalization-book" / "mnist"


def _idx_problem(name, data):
    """None if `data` is a well-formed IDX file of unsigned bytes of kind `name`."""
    images = "images" in name
    ndim_expected = 3 if images else 1
    if len(data) < 4 or data[0] != 0 or data[1] != 0 or data[2] != 0x08:
        return (
            f"bad IDX header: magic {data[:4].hex()}, expected 0000080{ndim_expected}"
        )
    ndim = data[3]
    if ndim != ndim_expected or len(data) < 4 + 4 * ndim:
        return f"bad IDX header: {ndim} dimensions, expected {ndim_expected}"
    dims = tuple(
        int.from_bytes(data[4 + 4 * k : 8 + 4 * k], "big") for k in range(ndim)
    )
    if images and dims[1:] != (28, 28):
        return f"bad IDX header: image size {dims[1:]}, expected (28, 28)"
    if len(data) != 4 + 4 * ndim + int(np.prod(dims)):
        return f"bad IDX size: header says {dims}, file has {len(data)} bytes"
    return None


def _problem(name, data, checksums):
    """None if `data` has the expected SHA-256 and a valid IDX header."""
    actual = hashlib.sha256(data).hexdigest()
    if actual != checksums[name]:
        return f"SHA-256 mismatch: expected {checksums[name]}, got {actual}"
    return _idx_problem(name, data)


def _read_local(name, folder, checksums):
    """(bytes, None) if folder holds `name` or `name`.gz and it checks out,
    else (None, what is wrong)."""
    path = Path(folder) / name
    try:
        if path.is_file():
            data = path.read_bytes()
        elif path.with_name(name + ".gz").is_file():
            data = gzip.decompress(path.with_name(name + ".gz").read_bytes())
        else:
            return None, "file not found"
    except Exception as error:  # unreadable file or broken gzip
        return None, f"{type(error).__name__}: {error}"
    problem = _problem(name, data, checksums)
    return (None, problem) if problem else (data, None)


def _download(url, target, name, checksums, timeout):
    """Fetch url (gzip) into a temporary file next to `target`; rename it into
    place only if it checks out. Returns None on success, else what went wrong.
    Leaves no partial file."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(
            dir=target.parent, prefix=f".{name}.", suffix=".part"
        )
    except OSError as error:
        return f"cannot write to the cache folder: {error}"
    try:
        with (
            os.fdopen(fd, "wb") as out,
            urllib.request.urlopen(url, timeout=timeout) as response,
            gzip.GzipFile(fileobj=response) as unzipped,
        ):
            while chunk := unzipped.read(1 << 20):
                out.write(chunk)
        problem = _problem(name, Path(tmp).read_bytes(), checksums)
        if problem is None:
            os.replace(tmp, target)
        return problem
    except Exception as error:  # network, HTTP, truncated gzip: try the next mirror
        return f"{type(error).__name__}: {error}"
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _parse(data):
    ndim = data[3]
    dims = tuple(
        int.from_bytes(data[4 + 4 * k : 8 + 4 * k], "big") for k in range(ndim)
    )
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


def load_mnist(
    search_dirs=None,
    cache_dir=None,
    mirrors=None,
    checksums=None,
    timeout=30.0,
    verbose=True,
):
    """Return (x_train, y_train, x_test, y_test) as uint8 arrays: N x 28 x 28, N.

    Sources, in order: the local folders (default: $MNIST_DIR, data/mnist), the
    cache folder, then the mirrors (downloads are verified, then stored in the
    cache folder). Every file's SHA-256 and IDX header are checked whatever its
    source. search_dirs is a list of (label, folder); checksums maps file name ->
    SHA-256 (default: MNIST_SHA256).
    """
    tried_first = []
    if search_dirs is None:
        search_dirs = mnist_default_dirs()
        if not os.environ.get("MNIST_DIR"):
            tried_first.append("$MNIST_DIR: not set")
    cache_dir = Path(mnist_default_cache() if cache_dir is None else cache_dir)
    mirrors = MNIST_MIRRORS if mirrors is None else mirrors
    checksums = MNIST_SHA256 if checksums is None else checksums
    arrays = {}
    for name in checksums:
        tried, data = list(tried_first), None
        for label, folder in [*search_dirs, ("cache", cache_dir)]:
            data, problem = _read_local(name, folder, checksums)
            if data is not None:
                break
            tried.append(f"{label} ({folder}): {problem}")
        else:
            for mirror in mirrors:
                url = mirror + name + ".gz"
                problem = _download(url, cache_dir / name, name, checksums, timeout)
                if problem is None:
                    data = (cache_dir / name).read_bytes()
                    label = f"downloaded from {mirror}"
                    break
                tried.append(f"{url}: {problem}")
        if data is None:
            raise MNISTError(
                f"MNIST file {name} (SHA-256 {checksums[name]}) could not be "
                "loaded. Tried:\n  " + "\n  ".join(tried) + "\n" + MNIST_HOW_TO_FIX
            )
        if verbose:
            print(f"{name}: {label}, SHA-256 verified")
        arrays[name] = _parse(data)
    split = {}
    for part in ("train", "t10k"):
        x, y = arrays[f"{part}-images-idx3-ubyte"], arrays[f"{part}-labels-idx1-ubyte"]
        if len(x) != len(y) or (len(y) and y.max() > 9):
            raise MNISTError(
                f"MNIST {part}: {len(x)} images but {len(y)} labels, or a label > 9"
            )
        split[part] = (x, y)
    return (*split["train"], *split["t10k"])
