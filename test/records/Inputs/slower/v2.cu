// Fixture for test/records (slower): not a real variant; recipe user:v2.cu.
