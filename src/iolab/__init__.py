"""iolab: a storage-performance lab for Linux built on fio."""

__version__ = "0.1.0"
