-- The quality checks of a passed unit (robustness, efficiency, maintainability) as JSON,
-- written with the unit's result in the same row; NULL where nothing was checked. Fault rows
-- never carry one; the column is there so both tables read through one row type.
ALTER TABLE unit_results ADD COLUMN quality_json TEXT;
ALTER TABLE unit_faults ADD COLUMN quality_json TEXT;
