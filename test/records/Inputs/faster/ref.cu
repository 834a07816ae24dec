// Fixture for test/records (faster): not a real variant; recipe reference.
