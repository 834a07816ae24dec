// Fixture for test/records (geomean-b): not a real variant; recipe reference.
