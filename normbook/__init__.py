"""The code the chapters share, written once.

Each chapter notebook must run alone (as Colab opens it), so it carries copies of what it
uses from here, in cells tagged `sync:MODULE[:NAMES]` and in its grade cells' harness
blocks; `make sync` (upkeep/sync.py) writes them and a test fails on any drift. Edit the
code here, never in a notebook. The notebooks never import this package; the maintainer
commands and the tests do.

- figures.py: the interactive-figure helper (every chapter)
- layers.py: LayerNorm and RMSNorm forward and backward passes (chapters 2 on)
- gradcheck.py: numerical gradients and error metrics (chapters 3 on)
- grading.py: the harness of the grade cells
- mnist.py: the verified MNIST loader (chapter 7; also `make data`)
- triton_norms.py: LayerNorm and RMSNorm as Triton kernels (the GPU chapter; needs
  triton, which `make test-triton` installs apart)
"""
