// Fixture for test/records (check-failed): not a real variant; recipe tile(16).
