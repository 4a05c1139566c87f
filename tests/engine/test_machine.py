import subprocess
import sys

from core.engine import machine


def test_budget_takes_the_lower_of_setting_and_container(monkeypatch):
    monkeypatch.setenv("VITLAB_MEMORY_BUDGET", str(2**40))
    monkeypatch.setattr(machine, "memory_limit", lambda: 690e6)
    assert machine.total_budget() <= 690e6
    monkeypatch.setattr(machine, "memory_limit", lambda: 2e12)
    monkeypatch.setenv("VITLAB_MEMORY_BUDGET", str(2**30))
    assert machine.total_budget() == 2**30


def test_probes_read_cgroup_v1_and_v2(monkeypatch):
    files = {"/sys/fs/cgroup/memory/memory.limit_in_bytes": "734003200", "/sys/fs/cgroup/cpu/cpu.cfs_quota_us": "50000",
             "/sys/fs/cgroup/cpu/cpu.cfs_period_us": "100000"}
    monkeypatch.setattr(machine, "_read", files.get)
    assert machine.memory_limit() == 734003200 and machine.cpu_count() == 0.5
    files = {"/sys/fs/cgroup/memory.max": "2900000000", "/sys/fs/cgroup/cpu.max": "200000 100000"}
    monkeypatch.setattr(machine, "_read", files.get)
    assert machine.memory_limit() == 2.9e9 and machine.cpu_count() == 2.0


def test_machine_probes_import_no_torch():
    # the command line reads them before its own imports, to start workers while it imports torch
    code = "import sys, core.engine.machine, core.engine.worker; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
