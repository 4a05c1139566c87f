"""UI helpers shared by the pages: Plotly figures (``figures``: one module per kind) and small Streamlit pieces (``widgets``)."""
