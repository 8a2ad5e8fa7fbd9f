"""scgpu_tools: design-space exploration around the scgpu simulator.

* ``sweep``  - run a parameter sweep described in YAML (sweepfile.py, expand.py, sweep.py),
  locally or on a Dask cluster (engines/), into a resumable results directory (store.py) and a
  table (table.py, flatten.py);
* ``plot``   - charts of a sweep's results (plots/);
* ``report`` - an HTML page for one run's statistics (report/).

Entry point: ``python3 -m scgpu_tools COMMAND`` (cli.py).
"""

__version__ = "0.1.0"
