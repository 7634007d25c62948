-- Indexes for history and ls on a store of a million results (bench/history_scale.py).
-- A series' newest runs are found by walking one host's runs newest first (runs_by_host_start) and
-- asking, for each, whether it holds the workload (points_by_workload_run, which covers the point's
-- status too, so the wide points row with its spec is never read); the figures come from
-- results_figures without reading the results row and its percentiles. points_by_workload is the
-- first column of the new index, so it goes.
CREATE INDEX IF NOT EXISTS runs_by_host_start ON runs (host, started_at, id);
CREATE INDEX IF NOT EXISTS points_by_workload_run ON points (workload, run_id, status);
DROP INDEX IF EXISTS points_by_workload;
CREATE INDEX IF NOT EXISTS results_figures ON results (point_id, iops, bw_bytes, lat_mean_ns);
