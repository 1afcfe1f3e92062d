"""What the tests import besides pytest: paths and ports (`project`), the pipeline tests'
queries and dbt invocations (`pipeline`), the public sample sets the session lands
(`public_landings`), the fuzz harness's messages (`fuzzing`) and the simulated source
database of the incremental tests (`simulated_source`). Fixtures and hooks stay in conftest.py.
"""
