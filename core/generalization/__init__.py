"""The ViT-vs-CNN generalization experiment (lesson 3), as layers that import only downwards:

    model_config → models (registry) → config (experiment, presets, sweeps) → data → planning (resources,
    cost, the server-wide budget) → pool / worker (processes; know jobs, not results) → results → run

``tests/test_architecture.py`` enforces the order. Start reading at ``run.py``.
"""
