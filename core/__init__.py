"""ViT Lab's engine: plain PyTorch and NumPy, no Streamlit. Run ``python -m core --help``."""
