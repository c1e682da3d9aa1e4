"""nowemu: an emulator of networks of workstations for job-scheduling research."""
__version__ = "0.1.0"
