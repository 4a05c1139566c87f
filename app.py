"""ViT Lab: the entry point. ``streamlit run app.py`` builds the navigation from the one list of pages
(ui/lesson_list.py) and runs the page the URL names; each page is one file in pages/."""

import streamlit as st

from ui.browser_store import after_page, before_page
from ui.lesson_list import PAGES, nav_label
from ui.warm_up import warm_up

st.set_page_config(page_title="ViT Lab", page_icon="🔬", layout="wide", initial_sidebar_state="auto")
before_page()  # a learner's progress and predictions, read back from their browser after a reload
st.navigation([st.Page(p.page, title=nav_label(p), icon=p.icon, default=p.home, url_path=None if p.home else p.url_path)
               for p in PAGES]).run()
after_page()  # and kept there (ui/browser_store.py)
warm_up()  # torch, imported in the background after the first page (ui/warm_up.py)
