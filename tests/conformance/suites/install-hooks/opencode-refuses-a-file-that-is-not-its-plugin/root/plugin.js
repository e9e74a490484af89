export const Mine = async () => ({})
