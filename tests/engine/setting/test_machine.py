import subprocess
import sys

from core.engine.setting import machine


def test_budget_takes_the_lower_of_setting_and_container(monkeypatch):
    monkeypatch.setenv("VITLAB_MEMORY_BUDGET", str(2**40))
    monkeypatch.setattr(machine, "memory_limit", lambda: 690e6)
    assert machine.total_budget() <= 690e6
    monkeypatch.setattr(machine, "memory_limit", lambda: 2e12)
    monkeypatch.setenv("VITLAB_MEMORY_BUDGET", str(2**30))
    assert machine.total_budget() == 2**30


def cgroups(tmp_path, monkeypatch, own: str, files: dict[str, str]) -> None:
    """A fake cgroup mount under ``tmp_path`` holding ``files`` (paths under the mount), this process in ``own``."""
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    (tmp_path / "self").write_text(own)
    monkeypatch.setattr(machine, "CGROUPS", str(tmp_path))
    monkeypatch.setattr(machine, "SELF_CGROUP", str(tmp_path / "self"))


def test_probes_read_cgroup_v1_at_the_mount(tmp_path, monkeypatch):
    cgroups(tmp_path, monkeypatch, "4:memory:/\n1:cpu,cpuacct:/\n", {
        "memory/memory.limit_in_bytes": "734003200", "cpu/cpu.cfs_quota_us": "50000", "cpu/cpu.cfs_period_us": "100000"})
    assert machine.memory_limit() == 734003200 and machine.cpu_count() == 0.5


def test_probes_read_cgroup_v1_in_the_processs_own_group_and_the_tightest_on_its_way(tmp_path, monkeypatch):
    cgroups(tmp_path, monkeypatch, "4:memory:/class/app\n1:cpu,cpuacct:/class/app\n", {
        "memory/memory.limit_in_bytes": "9223372036854771712",  # no limit at the top
        "memory/class/memory.limit_in_bytes": "2000000000", "memory/class/app/memory.limit_in_bytes": "1073741824",
        "cpu/cpu.cfs_quota_us": "-1", "cpu/cpu.cfs_period_us": "100000",
        "cpu/class/cpu.cfs_quota_us": "50000", "cpu/class/cpu.cfs_period_us": "100000",
        "cpu/class/app/cpu.cfs_quota_us": "150000", "cpu/class/app/cpu.cfs_period_us": "100000"})
    assert machine.memory_limit() == 1073741824 and machine.cpu_count() == 0.5


def test_probes_read_cgroup_v2_and_a_group_missing_under_the_mount_falls_back_to_it(tmp_path, monkeypatch):
    cgroups(tmp_path, monkeypatch, "0::/elsewhere/app\n", {"memory.max": "2900000000", "cpu.max": "200000 100000"})
    assert machine.memory_limit() == 2.9e9 and machine.cpu_count() == 2.0
    cgroups(tmp_path, monkeypatch, "0::/app\n", {"app/memory.max": "max", "app/cpu.max": "max 100000"})
    assert machine.memory_limit() == 2.9e9 and machine.cpu_count() == 2.0


def test_machine_probes_import_no_torch():
    # the command line reads them before its own imports, to start workers while it imports torch
    code = "import sys, core.engine.setting.machine, core.engine.running.worker; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
