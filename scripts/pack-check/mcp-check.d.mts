export function checkMcp(url: string, token: string, call?: boolean): Promise<{ tools: string[]; sum: string | undefined }>;
