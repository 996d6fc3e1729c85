export async function migrateCommand(): Promise<number> { return 0; }
