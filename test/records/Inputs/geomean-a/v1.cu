// Fixture for test/records (geomean-a): not a real variant; recipe tile(16).
