export {};

declare module "vitest" {
  export interface ProvidedContext {
    httpPort: number;
    tcpPort: number;
    closedPort: number;
  }
}
