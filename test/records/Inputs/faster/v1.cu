// Fixture for test/records (faster): not a real variant; recipe user:v1.cu.
