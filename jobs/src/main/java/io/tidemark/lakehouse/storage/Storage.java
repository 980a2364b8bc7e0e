package io.tidemark.lakehouse.storage;

import io.minio.BucketExistsArgs;
import io.minio.GetObjectArgs;
import io.minio.GetObjectResponse;
import io.minio.ListObjectsArgs;
import io.minio.MakeBucketArgs;
import io.minio.MinioClient;
import io.minio.PutObjectArgs;
import io.minio.Result;
import io.minio.StatObjectArgs;
import io.minio.StatObjectResponse;
import io.minio.errors.ErrorResponseException;
import io.minio.messages.Item;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.services.Endpoints;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import okhttp3.OkHttpClient;

/**
 * The object store through the MinIO Java client: buckets, and the objects of the landing zone. One client
 * per process; close it, or OkHttp's threads keep the JVM alive for a minute after the work is done.
 */
public final class Storage implements AutoCloseable {
  private final OkHttpClient http;
  private final MinioClient client;
  private final String endpoint;

  /** An object's key, size and entity tag. */
  /** An object's key, size, ETag and when it was last written (the garbage collector's grace period). */
  public record ObjectInfo(String key, long size, String etag, java.time.Instant lastModified) {}

  private Storage(OkHttpClient http, MinioClient client, String endpoint) {
    this.http = http;
    this.client = client;
    this.endpoint = endpoint;
  }

  public static Storage connect(TidemarkConfig config, Endpoints endpoints) {
    OkHttpClient http = new OkHttpClient.Builder()
        .connectTimeout(5, TimeUnit.SECONDS)
        .readTimeout(60, TimeUnit.SECONDS)
        .writeTimeout(60, TimeUnit.SECONDS)
        .build();
    MinioClient client = MinioClient.builder()
        .endpoint(endpoints.s3Endpoint().toString())
        .credentials(endpoints.s3AccessKey().reveal(), endpoints.s3SecretKey().reveal())
        .region(config.s3Region())
        .httpClient(http)
        .build();
    if (config.s3PathStyle()) {
      client.disableVirtualStyleEndpoint();
    } else {
      client.enableVirtualStyleEndpoint();
    }
    return new Storage(http, client, endpoints.s3Endpoint().toString());
  }

  /** Creates the bucket unless it exists; true when it was created. */
  public boolean ensureBucket(String bucket) {
    return call("create bucket " + bucket, () -> {
      if (client.bucketExists(BucketExistsArgs.builder().bucket(bucket).build())) {
        return false;
      }
      try {
        client.makeBucket(MakeBucketArgs.builder().bucket(bucket).build());
      } catch (ErrorResponseException e) {
        if ("BucketAlreadyOwnedByYou".equals(e.errorResponse().code())) {
          return false; // made by a call whose answer was lost, or by a job that ran at the same time
        }
        throw e;
      }
      return true;
    });
  }

  public boolean bucketExists(String bucket) {
    return call("look up bucket " + bucket, () -> client.bucketExists(BucketExistsArgs.builder().bucket(bucket).build()));
  }

  public Optional<ObjectInfo> stat(String bucket, String key) {
    return call("stat s3://" + bucket + "/" + key, () -> {
      try {
        StatObjectResponse r = client.statObject(StatObjectArgs.builder().bucket(bucket).object(key).build());
        return Optional.of(new ObjectInfo(key, r.size(), stripQuotes(r.etag()), r.lastModified().toInstant()));
      } catch (ErrorResponseException e) {
        if ("NoSuchKey".equals(e.errorResponse().code()) || "NoSuchObject".equals(e.errorResponse().code())) {
          return Optional.empty();
        }
        throw e;
      }
    });
  }

  public void put(String bucket, String key, byte[] content, String contentType) {
    call("write s3://" + bucket + "/" + key, () -> client.putObject(PutObjectArgs.builder()
        .bucket(bucket).object(key).contentType(contentType)
        .stream(new ByteArrayInputStream(content), content.length, -1).build()));
  }

  public byte[] get(String bucket, String key) {
    return call("read s3://" + bucket + "/" + key, () -> {
      try (GetObjectResponse in = client.getObject(GetObjectArgs.builder().bucket(bucket).object(key).build())) {
        return in.readAllBytes();
      }
    });
  }

  /** Copies an object to a local file, e.g. for DuckDB, which reads local files only here. */
  public void download(String bucket, String key, Path target) {
    call("download s3://" + bucket + "/" + key, () -> {
      Files.createDirectories(target.toAbsolutePath().getParent());
      try (GetObjectResponse in = client.getObject(GetObjectArgs.builder().bucket(bucket).object(key).build());
           OutputStream out = Files.newOutputStream(target)) {
        in.transferTo(out);
      }
      return null;
    });
  }

  /** Every object under the prefix, recursively, in key order. */
  public List<ObjectInfo> list(String bucket, String prefix) {
    return call("list s3://" + bucket + "/" + prefix, () -> {
      List<ObjectInfo> out = new ArrayList<>();
      for (Result<Item> r : client.listObjects(
          ListObjectsArgs.builder().bucket(bucket).prefix(prefix).recursive(true).build())) {
        Item item = r.get();
        if (!item.isDir()) {
          out.add(new ObjectInfo(item.objectName(), item.size(), stripQuotes(item.etag()),
              item.lastModified().toInstant()));
        }
      }
      out.sort((a, b) -> a.key().compareTo(b.key()));
      return out;
    });
  }

  /** A server-side copy within a bucket. */
  public void copy(String bucket, String from, String to) {
    call("copy s3://" + bucket + "/" + from + " to " + to, () -> client.copyObject(io.minio.CopyObjectArgs.builder()
        .bucket(bucket).object(to).source(io.minio.CopySource.builder().bucket(bucket).object(from).build()).build()));
  }

  public void remove(String bucket, String key) {
    call("delete s3://" + bucket + "/" + key, () -> {
      client.removeObject(io.minio.RemoveObjectArgs.builder().bucket(bucket).object(key).build());
      return null;
    });
  }

  @Override
  public void close() {
    http.dispatcher().executorService().shutdown();
    http.connectionPool().evictAll();
  }

  private static String stripQuotes(String etag) {
    return etag == null ? "" : etag.replace("\"", "");
  }

  private interface Call<T> {
    T run() throws Exception;
  }

  /**
   * {@code action}, made again after a backoff while it fails with a transient fault (a connection closed, a timeout,
   * a 503): every call here may be (a write puts the same bytes under the same key, a copy or a delete has the same
   * effect twice), so one whose answer was lost needs no other care. OkHttp retries only a stale pooled connection.
   */
  private <T> T call(String what, Call<T> action) {
    for (int attempt = 1; ; attempt++) {
      try {
        return once(what, action);
      } catch (StorageException e) {
        if (attempt >= io.tidemark.services.TransientFault.ATTEMPTS
            || !io.tidemark.services.TransientFault.is(e.getCause())) {
          throw e;
        }
        io.tidemark.services.TransientFault.pause("s3: " + what, attempt + 1, e.getCause());
      }
    }
  }

  private <T> T once(String what, Call<T> action) {
    try {
      return action.run();
    } catch (ErrorResponseException e) {
      throw new StorageException("cannot " + what + " at " + endpoint + ": " + e.errorResponse().code() + " "
          + e.errorResponse().message(), e);
    } catch (IOException e) {
      throw new StorageException("cannot " + what + " at " + endpoint + ": " + e.getMessage(), e);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new StorageException("cannot " + what + " at " + endpoint + ": " + e, e);
    }
  }
}
