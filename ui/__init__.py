"""UI helpers shared by the pages: Plotly figures (``charts``) and small Streamlit pieces (``widgets``)."""
