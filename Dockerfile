# One ViT Lab replica: the app and its shipped results. Replicas share finished runs and training workers only
# through a Redis (VITLAB_REDIS_URL, with VITLAB_ARCHIVE_SECRET); without one each keeps its own runs. See README, "Hosting for a class",
# and deploy/nginx.conf for the proxy in front of them.
FROM python:3.12-slim
WORKDIR /app
COPY requirements.txt .
# requirements.txt takes PyTorch's CPU wheel on Linux x86_64 / Python 3.12 (no CUDA libraries)
RUN pip install --no-cache-dir -r requirements.txt
COPY app.py ./
COPY .streamlit ./.streamlit
COPY core ./core
COPY ui ./ui
COPY pages ./pages
COPY results ./results
# Size the budget to the container: the app reads the cgroup limit too and takes the lower of the two.
ENV VITLAB_MEMORY_BUDGET=2600000000
EXPOSE 8501
HEALTHCHECK --interval=30s --timeout=5s CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8501/_stcore/health')"
CMD ["streamlit", "run", "app.py", "--server.port=8501", "--server.address=0.0.0.0", "--server.headless=true", \
     "--browser.gatherUsageStats=false"]
