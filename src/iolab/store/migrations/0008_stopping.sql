-- Why a point ended when it ran with stopping on (`iolab run --stop-when-known`):
-- its StopRecord as JSON (reason, 95% interval, target, warm-up and kept seconds);
-- NULL for points that ran their fixed length, as every point before this did.
ALTER TABLE points ADD COLUMN stopping TEXT;
