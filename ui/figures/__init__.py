"""Every Plotly figure of the lab, by kind. Plotly only: no Streamlit here."""
