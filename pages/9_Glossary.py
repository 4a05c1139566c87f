"""The glossary: every word the lessons use that a newcomer may not have (defined in ui/glossary.py)."""

import streamlit as st

from ui.glossary import TERMS, slug
from ui.lesson_list import page_of
from ui.widgets import page_header

PAGE = page_of(__file__)


page_header(PAGE, "The words the lessons use, each in a sentence or two.")
for word, definition in TERMS.items():
    st.subheader(word[0].upper() + word[1:], anchor=slug(word))
    st.markdown(definition)
