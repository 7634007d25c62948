"""Views: what a page shows, loaded from the store and computed with analysis and the doctor.

A view is plain data (a run with its tables and findings, a comparison of two
groups of runs, a series' history). Renderers in `iolab.report` show views in
one format each and never open the store; the CLI loads a view and picks a
renderer.
"""
