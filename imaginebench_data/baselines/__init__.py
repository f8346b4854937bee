"""Reference training on the datasets: behaviour cloning in plain torch, and the paper's
comparison of data regimes (``compare.py``)."""
