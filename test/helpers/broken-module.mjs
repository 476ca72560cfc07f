// Test-only: a worker module that fails to load, so the workers that import it can never start.
throw new Error('this module always fails to load');
