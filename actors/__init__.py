"""The workstation model (CPU, pager, disk, network interface, jobs) and the thin Ray actor that hosts one."""
