import streamlit as st

st.set_page_config(page_title="ViT Lab", layout="wide")
st.title("3_ViT_vs_CNN")
st.info("This lesson is being built.")
