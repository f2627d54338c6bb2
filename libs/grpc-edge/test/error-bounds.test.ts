/** toGrpcError bounds what it sends, so huge input quoted in an error still fits in gRPC trailers. */
import { status } from '@grpc/grpc-js';
import { MAX_ERROR_MESSAGE_CHARS, ToolHubError } from '@toolhub/contracts';

import { toGrpcError } from '../src';

describe('toGrpcError', () => {
  it('bounds the error: the status details and the ErrorInfo trailer stay small', () => {
    const grpcErr = toGrpcError(ToolHubError.notFound(`No tool "${'y'.repeat(500_000)}".`, []));
    expect(grpcErr.code).toBe(status.NOT_FOUND);
    expect(grpcErr.details!.length).toBeLessThanOrEqual(MAX_ERROR_MESSAGE_CHARS);
    const trailerBytes = grpcErr.metadata!.get('toolhub-error-bin').reduce((n, v) => n + (v as Buffer).length, 0);
    expect(trailerBytes).toBeGreaterThan(0);
    expect(trailerBytes).toBeLessThan(16 * 1024);
  });
});
