"""The code the chapters share, written once.

Each chapter notebook must run alone (as Colab opens it), so it carries copies of what it
uses from here, in cells tagged `sync:MODULE[:NAMES]`; `make sync` (upkeep/sync.py) writes them and a test fails on any drift. Edit the
code here, never in a notebook. The notebooks never import this package; the maintainer
commands and the tests do.

- figures.py: the figure helpers, `show_figure` and `interactive_figure` (every chapter)
- layers.py: LayerNorm and RMSNorm forward and backward passes (chapters 2 on)
- gradcheck.py: numerical gradients and error metrics (chapters 3 on)
- grading.py: the grading harness (one locked cell per chapter with exercises; the
  grader in grading/ runs its own copy)
- mnist.py: the verified MNIST loader (chapter 7; also `make data`)
- gpt.py: the small GPT, its training loop, n-gram yardsticks and corpus (chapters 8,
  11-13; also measure/)
- dyt.py: Dynamic Tanh forward and backward (chapter 12)
- triton_norms.py: LayerNorm and RMSNorm as Triton kernels (the GPU chapter; needs
  triton, which `make test-triton` installs apart)
"""
