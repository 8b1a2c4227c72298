test('the package loads', async () => {
  await expect(import('../src/index')).resolves.toBeDefined();
});
