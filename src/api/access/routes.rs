//! The registry REST routes are declared in, each with the role it needs, and from which their
//! router is built: a route cannot be added without a role, and the registry can be listed
//! (axum cannot list a router's routes), which the route-walk test does.

use super::check;
use crate::access::Role;
use crate::api::AppState;
use axum::extract::Request;
use axum::handler::Handler;
use axum::http::Method;
use axum::middleware::{from_fn, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{self, MethodRouter};
use axum::Router;

/// What a route needs of its caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Anyone, signed in or not (the login page, the site's files).
    Public,
    Role(Role),
}

impl From<Role> for Access {
    fn from(role: Role) -> Access {
        Access::Role(role)
    }
}

/// One declared route.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouteEntry {
    pub method: Method,
    /// The full path, `{params}` as axum writes them.
    pub path: String,
    pub access: Access,
}

/// Routes being declared, with the router they make.
#[derive(Default)]
pub struct Routes {
    router: Router<AppState>,
    entries: Vec<RouteEntry>,
}

macro_rules! method {
    ($name:ident, $method:ident) => {
        pub fn $name<H, T>(self, path: &str, access: impl Into<Access>, handler: H) -> Routes
        where
            H: Handler<T, AppState>,
            T: 'static,
        {
            self.add(
                Method::$method,
                path,
                access.into(),
                routing::$name(handler),
            )
        }
    };
}

impl Routes {
    pub fn new() -> Routes {
        Routes::default()
    }

    method!(get, GET);
    method!(post, POST);
    method!(put, PUT);
    method!(patch, PATCH);
    method!(delete, DELETE);

    /// A route that is not one handler per method (a service, a file server), answering `method`.
    pub fn service(
        self,
        method: Method,
        path: &str,
        access: impl Into<Access>,
        route: MethodRouter<AppState>,
    ) -> Routes {
        self.add(method, path, access.into(), route)
    }

    /// A service answering every path under `prefix` (a folder of files), for GET.
    pub fn nest_service<T>(mut self, prefix: &str, access: impl Into<Access>, service: T) -> Routes
    where
        T: tower::Service<Request, Error = std::convert::Infallible> + Clone + Send + Sync + 'static,
        T::Response: IntoResponse,
        T::Future: Send + 'static,
    {
        let access = access.into();
        let nested = Router::new().nest_service(prefix, service).route_layer(from_fn(
            move |request: Request, next: Next| guard(access, request, next),
        ));
        self.router = self.router.merge(nested);
        self.entries.push(RouteEntry {
            method: Method::GET,
            path: format!("{prefix}{{*path}}"),
            access,
        });
        self
    }

    fn add(mut self, method: Method, path: &str, access: Access, route: MethodRouter<AppState>) -> Routes {
        // The role first, so a caller who may not call the route learns nothing of its ids.
        let guarded = route
            .route_layer(from_fn(super::path_ids::check_path_ids))
            .route_layer(from_fn(move |request: Request, next: Next| {
                guard(access, request, next)
            }));
        self.router = self.router.route(path, guarded);
        self.entries.push(RouteEntry {
            method,
            path: path.to_string(),
            access,
        });
        self
    }

    pub fn merge(mut self, other: Routes) -> Routes {
        self.router = self.router.merge(other.router);
        self.entries.extend(other.entries);
        self
    }

    /// `other` under `prefix`, answering `fallback` for the paths under it that match nothing.
    pub fn nest<H, T>(mut self, prefix: &str, other: Routes, fallback: H) -> Routes
    where
        H: Handler<T, AppState>,
        T: 'static,
    {
        self.router = self.router.nest(prefix, other.router.fallback(fallback));
        self.entries
            .extend(other.entries.into_iter().map(|entry| RouteEntry {
                path: format!("{prefix}{}", entry.path),
                ..entry
            }));
        self
    }

    pub fn entries(&self) -> &[RouteEntry] {
        &self.entries
    }

    pub fn into_router(self) -> Router<AppState> {
        self.router
    }
}

async fn guard(access: Access, request: Request, next: Next) -> Response {
    match check(access, &request) {
        Ok(()) => next.run(request).await,
        Err(refusal) => refusal.into_response(),
    }
}
