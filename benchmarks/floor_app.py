"""Streamlit's own floor for benchmarks/cloud_tier.py: the least a page can be, one widget and one line."""

import streamlit as st

value = st.slider("Value", 0, 100, 0, key="value")
st.write(value)
