// Fixture for test/records (slower): not a real variant; recipe tile(16).
