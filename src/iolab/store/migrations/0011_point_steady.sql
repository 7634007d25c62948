-- fio's steady-state verdict of a point whose job asked for one (ss=): whether it held, when fio
-- stopped the job, what was asked and what the last window measured, as JSON (`models.SteadyState`).
-- NULL for every point without ss=.
ALTER TABLE points ADD COLUMN steady TEXT;
