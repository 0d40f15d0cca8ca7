SELECT 'ü';
CREATE TABLE IF NOT EXISTS t (id int,,);
NOTIFY pgrst, 'reload schema';
