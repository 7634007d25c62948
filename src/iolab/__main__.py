"""`python -m iolab` runs the command line."""

from iolab.cli import main

main()
