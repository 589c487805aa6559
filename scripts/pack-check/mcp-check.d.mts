export function checkMcp(url: string, token: string): Promise<{ tools: string[]; sum: string | undefined }>;
