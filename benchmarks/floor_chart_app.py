"""A second floor for benchmarks/cloud_tier.py: one widget and one small Plotly chart, sent as the lab sends its
charts (no Streamlit theme); what Streamlit and Plotly cost before any of the lab's own work."""

import plotly.graph_objects as go
import streamlit as st

value = st.slider("Value", 0, 100, 0, key="value")
fig = go.Figure(go.Bar(x=["a", "b", "c"], y=[value, 100 - value, 50]), layout=dict(template=None, height=240))
st.plotly_chart(fig, theme=None, key="chart")
