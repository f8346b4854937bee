"""The recipes of the built-in domains, one module per domain (installed as
``imaginebench_data.builders``). Each is a readable script: ``python -m
imaginebench_data.builders.clevr [--scale paper] [ID ...]`` builds its datasets."""
