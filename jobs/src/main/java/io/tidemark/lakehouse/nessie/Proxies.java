package io.tidemark.lakehouse.nessie;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.LinkedHashSet;
import java.util.Set;

/** What the clients that wrap Nessie's API in dynamic proxies (narrating, resilient) share. */
public final class Proxies {
  private Proxies() {}

  /** Every public interface {@code o}'s class implements, its superclasses' and their superinterfaces included. */
  public static Class<?>[] interfaces(Object o) {
    Set<Class<?>> all = new LinkedHashSet<>();
    for (Class<?> c = o.getClass(); c != null; c = c.getSuperclass()) {
      collect(c, all);
    }
    return all.toArray(new Class<?>[0]);
  }

  private static void collect(Class<?> c, Set<Class<?>> into) {
    for (Class<?> i : c.getInterfaces()) {
      if (Modifier.isPublic(i.getModifiers()) && into.add(i)) {
        collect(i, into);
      }
    }
  }

  /** {@code m} on {@code target}, throwing what it threw rather than its reflective wrapper. */
  public static Object call(Object target, Method m, Object[] args) throws Throwable {
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
