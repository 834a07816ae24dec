"""kfuse-export: a PyTorch module, captured as ATen operators, written out as reference CUDA
to kfuse's input contract (docs/export.md)."""
__version__ = "0.1.0"
