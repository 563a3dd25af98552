"""What the static scan (grading/scan.py) looks for, as data: the paths, builtins and
attributes a solution has no business touching, the bases and methods that make a
lying array, the callees that keep a function, the magics, and which findings cost an
exercise its points. Edit the tables here; the scan's logic does not change."""

import re

# Dotted paths (after resolving the notebook's imports) that nobody's answer needs.
# A path matches itself and everything under it.
BANNED_PATHS = {
    "builtins": "touches builtins",
    "sys.modules": "touches sys.modules",
    "sys.excepthook": "touches sys.excepthook",
    "sys.displayhook": "touches sys.displayhook",
    "sys.breakpointhook": "touches sys.breakpointhook",
    "sys.settrace": "installs a tracer (sys.settrace)",
    "sys.setprofile": "installs a profiler (sys.setprofile)",
    "sys.meta_path": "touches the import system (sys.meta_path)",
    "sys.path_hooks": "touches the import system (sys.path_hooks)",
    "sys.addaudithook": "installs an audit hook",
    "sys._getframe": "reads interpreter frames (sys._getframe)",
    "sys._current_frames": "reads interpreter frames (sys._current_frames)",
    "threading.settrace": "installs a tracer (threading.settrace)",
    "threading.setprofile": "installs a profiler (threading.setprofile)",
    "inspect.currentframe": "reads interpreter frames (inspect.currentframe)",
    "inspect.stack": "reads interpreter frames (inspect.stack)",
    "inspect.trace": "reads interpreter frames (inspect.trace)",
    "inspect.getouterframes": "reads interpreter frames (inspect.getouterframes)",
    "inspect.getinnerframes": "reads interpreter frames (inspect.getinnerframes)",
    "gc.get_referrers": "searches live objects (gc.get_referrers)",
    "gc.get_referents": "searches live objects (gc.get_referents)",
    "gc.get_objects": "searches live objects (gc.get_objects)",
    "IPython.get_ipython": "uses get_ipython()",
    "IPython.core": "uses IPython's internals",
    "IPython.terminal": "uses IPython's internals",
    "importlib": "uses importlib (dynamic code)",
    "ctypes": "uses ctypes",
    "_ctypes": "uses ctypes",
    "runpy": "runs code dynamically (runpy)",
    "marshal": "loads code objects (marshal)",
    "codeop": "compiles code dynamically (codeop)",
    "types.FunctionType": "builds functions from code objects (types.FunctionType)",
    "types.CodeType": "builds code objects (types.CodeType)",
    "os.system": "runs a shell command (os.system)",
    "os.popen": "runs a shell command (os.popen)",
    "subprocess": "runs a shell command (subprocess)",
    "pty": "runs a shell command (pty)",
    "torch.overrides": "overrides torch functions (torch.overrides)",
    "torch.library": "registers torch kernels (torch.library)",
    "torch.utils._python_dispatch": "overrides torch dispatch",
    "torch._C": "uses torch's C internals (torch._C)",
    "numpy.core.overrides": "overrides NumPy functions",
    # For the instructor's eye only (they cost nothing): the sandbox, not this scan,
    # keeps files, the network and other processes out of the student's reach.
    "os.open": "reads or writes files (os.open)",
    "os.listdir": "reads or writes files (os.listdir)",
    "os.scandir": "reads or writes files (os.scandir)",
    "os.walk": "reads or writes files (os.walk)",
    "os.readlink": "reads or writes files (os.readlink)",
    "os.remove": "reads or writes files (os.remove)",
    "os.unlink": "reads or writes files (os.unlink)",
    "os.rename": "reads or writes files (os.rename)",
    "os.replace": "reads or writes files (os.replace)",
    "os.mkdir": "reads or writes files (os.mkdir)",
    "os.makedirs": "reads or writes files (os.makedirs)",
    "os.chdir": "reads or writes files (os.chdir)",
    "os.symlink": "reads or writes files (os.symlink)",
    "io.open": "reads or writes files (io.open)",
    "pathlib": "reads or writes files (pathlib)",
    "glob": "reads or writes files (glob)",
    "shutil": "reads or writes files (shutil)",
    "tempfile": "reads or writes files (tempfile)",
    "numpy.load": "reads or writes files (numpy.load)",
    "numpy.save": "reads or writes files (numpy.save)",
    "numpy.savez": "reads or writes files (numpy.savez)",
    "numpy.fromfile": "reads or writes files (numpy.fromfile)",
    "numpy.loadtxt": "reads or writes files (numpy.loadtxt)",
    "torch.load": "reads or writes files (torch.load)",
    "torch.save": "reads or writes files (torch.save)",
    "pickle": "loads pickles (pickle)",
    "sys.path": "changes where imports come from (sys.path)",
    "sysconfig": "looks up the installation's folders (sysconfig)",
    "site": "looks up the installation's folders (site)",
    "os.environ": "reads the environment (os.environ)",
    "os.getenv": "reads the environment (os.getenv)",
    "os.fork": "starts processes (os.fork)",
    "os.kill": "signals processes (os.kill)",
    "multiprocessing": "starts processes (multiprocessing)",
    "socket": "uses the network (socket)",
    "urllib": "uses the network (urllib)",
    "http": "uses the network (http)",
}
# Strings that name a place in the file system: a root folder, the environment.
SYSTEM_PATH = re.compile(
    r"^/(proc|sys|dev|etc|home|root|tmp|usr|opt|var|mnt|run|srv)\b|^/[\w.-]+/"
    r"|site-packages|\.pth$"
)
# Builtin names whose mere use is dynamic code or a way around the scan.
BANNED_BUILTINS = {
    "exec": "runs dynamic code (exec)",
    "eval": "runs dynamic code (eval)",
    "compile": "compiles dynamic code (compile)",
    "__import__": "imports dynamically (__import__)",
    "__builtins__": "touches __builtins__",
    "get_ipython": "uses get_ipython()",
    "open": "reads or writes files (open)",
}
# Attributes that are frames, globals or hooks whatever object they hang on.
BANNED_ATTRIBUTES = {
    "f_back": "reads interpreter frames (f_back)",
    "f_globals": "reads interpreter frames (f_globals)",
    "f_locals": "reads interpreter frames (f_locals)",
    "f_builtins": "reads interpreter frames (f_builtins)",
    "gi_frame": "reads interpreter frames (gi_frame)",
    "cr_frame": "reads interpreter frames (cr_frame)",
    "ag_frame": "reads interpreter frames (ag_frame)",
    "tb_frame": "reads interpreter frames (tb_frame)",
    "__globals__": "reads a function's globals (__globals__)",
    "__builtins__": "touches __builtins__",
    "__subclasses__": "walks the class tree (__subclasses__)",
    "__import__": "imports dynamically (__import__)",
    "get_ipython": "uses get_ipython()",
    "ast_transformers": "registers an IPython hook (ast_transformers)",
    "input_transformers_post": "registers an IPython hook (input_transformers_post)",
    "input_transformers_cleanup": "registers an IPython hook",
    "set_custom_exc": "registers an IPython hook (set_custom_exc)",
    "read_text": "reads or writes files (.read_text)",
    "write_text": "reads or writes files (.write_text)",
    "read_bytes": "reads or writes files (.read_bytes)",
    "write_bytes": "reads or writes files (.write_bytes)",
}
# Methods that make an array or tensor class lie, or intercept every library call.
OVERRIDE_METHODS = {
    "__torch_function__",
    "__torch_dispatch__",
    "__array_function__",
    "__array_ufunc__",
}
ARRAY_BASES = {
    "ndarray",
    "Tensor",
    "Parameter",
    "matrix",
    "recarray",
    "memmap",
    "MaskedArray",
    "chararray",
    "TorchFunctionMode",
    "TorchDispatchMode",
}
AUTOGRAD_ATTRIBUTES = {
    "autograd",
    "backward",
    "grad_fn",
    "requires_grad",
    "requires_grad_",
    "_execution_engine",
    "run_backward",
    "functorch",
}
AUTOGRAD_PATHS = ("torch.autograd", "torch.func", "functorch", "torch._C")
# Callees that keep the function they are given.
CAPTURES = {
    "partial",
    "partialmethod",
    "wraps",
    "staticmethod",
    "classmethod",
    "MethodType",
    "append",
    "extend",
    "insert",
    "add",
    "update",
    "setdefault",
    "dict",
    "list",
    "tuple",
    "set",
    "setattr",
    "njit",
    "jit",
    "vectorize",
    "lru_cache",
    "cache",
}
# Settings that honest code assigns (`torch.backends.cudnn.deterministic = True`).
SETTINGS = ("torch.backends", "pandas.options", "matplotlib.rcParams")
# Magics: these run Python given after the name, those load code or register hooks.
PYTHON_MAGICS = {"time", "timeit", "prun", "capture", "python", "python3", "writefile"}
HOOK_MAGICS = {
    "load_ext",
    "reload_ext",
    "unload_ext",
    "autoreload",
    "aimport",
    "config",
    "run",
    "pdb",
    "alias_magic",
    "load",
    "loadpy",
    "macro",
    "store",
    "logstart",
    "autocall",
    "rerun",
    "recall",
}
SHELL_MAGICS = {"bash", "sh", "script", "system", "sx", "perl", "ruby", "sc"}

# Findings that make grading/grade.py score an exercise 0: what the exercise forbids,
# and the ways to reach it unseen (frames, builtins, sys.modules, IPython, dynamic code).
# The others (a patched np.allclose, a write to globals()) cannot reach checks that run
# in another process: they are flagged for a human, and cost nothing.
ZEROING = (
    "forbids",
    "rules out",
    "frames",
    "builtins",
    "sys.modules",
    "IPython",
    "get_ipython",
    "dynamic",
    "compiles",
    "ctypes",
    "live objects",
    "__globals__",
    "code objects",
)
