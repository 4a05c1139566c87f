import streamlit as st

st.set_page_config(page_title="ViT Lab", layout="wide")
st.title("2_Permutation_symmetry")
st.info("This lesson is being built.")
