-- The points' figures a finding quotes (doctor.quotes): JSON list of {points, metric, value, shown, unit}.
ALTER TABLE findings ADD COLUMN quotes TEXT NOT NULL DEFAULT '[]';
