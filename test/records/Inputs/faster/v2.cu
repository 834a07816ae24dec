// Fixture for test/records (faster): not a real variant; recipe fuse+tile(32).
