from __future__ import annotations

from pkgutil import extend_path
__path__ = extend_path(__path__, __name__)

import abc
import builtins
import datetime
import enum
import typing

import jsii
import publication
import typing_extensions

from jsii._type_checking import cached_type_hints, check_type


from ._jsii import *

class _LazyImport:
    def __init__(self, module_name: str) -> None:
        self._module_name = module_name
        self._module: typing.Any = None
    def __getattr__(self, name: str) -> typing.Any:
        if self._module is None:
            import importlib
            self._module = importlib.import_module(self._module_name)
        return getattr(self._module, name)

if typing.TYPE_CHECKING:

    import cdk8s as _cdk8s_d3d9af27
    import constructs as _constructs_77d1e7e8
else:

    _cdk8s_d3d9af27 = _LazyImport("cdk8s")
    _constructs_77d1e7e8 = _LazyImport("constructs")


class Accounting(
    _cdk8s_d3d9af27.ApiObject,
    metaclass=jsii.JSIIMeta,
    jsii_type="netslurmslinky.Accounting",
):
    '''Accounting is the Schema for the accountings API.

    :schema: Accounting
    '''

    def __init__(
        self,
        scope: "_constructs_77d1e7e8.Construct",
        id: builtins.str,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["AccountingSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Defines a "Accounting" API object.

        :param scope: the scope in which to define this object.
        :param id: a scope-local name for the object.
        :param metadata: 
        :param spec: AccountingSpec defines the desired state of Accounting.
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__55e13ef28be4a6c8ff27aa8d0425a54e77ffdc114ab414c42c27cd47d0efda5f)
            check_type(argname="argument scope", value=scope, expected_type=type_hints["scope"])
            check_type(argname="argument id", value=id, expected_type=type_hints["id"])
        props = AccountingProps(metadata=metadata, spec=spec)

        jsii.create(self.__class__, self, [scope, id, props])

    @jsii.member(jsii_name="manifest")
    @builtins.classmethod
    def manifest(
        cls,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["AccountingSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> typing.Any:
        '''Renders a Kubernetes manifest for "Accounting".

        This can be used to inline resource manifests inside other objects (e.g. as templates).

        :param metadata: 
        :param spec: AccountingSpec defines the desired state of Accounting.
        '''
        props = AccountingProps(metadata=metadata, spec=spec)

        return typing.cast(typing.Any, jsii.sinvoke(cls, "manifest", [props]))

    @jsii.member(jsii_name="toJson")
    def to_json(self) -> typing.Any:
        '''Renders the object to Kubernetes JSON.'''
        return typing.cast(typing.Any, jsii.invoke(self, "toJson", []))

    @jsii.python.classproperty
    @jsii.member(jsii_name="GVK")
    def GVK(cls) -> "_cdk8s_d3d9af27.GroupVersionKind":
        '''Returns the apiVersion and kind for "Accounting".'''
        return typing.cast("_cdk8s_d3d9af27.GroupVersionKind", jsii.sget(cls, "GVK"))


@jsii.data_type(
    jsii_type="netslurmslinky.AccountingProps",
    jsii_struct_bases=[],
    name_mapping={"metadata": "metadata", "spec": "spec"},
)
class AccountingProps:
    def __init__(
        self,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["AccountingSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Accounting is the Schema for the accountings API.

        :param metadata: 
        :param spec: AccountingSpec defines the desired state of Accounting.

        :schema: Accounting
        '''
        if isinstance(metadata, dict):
            metadata = _cdk8s_d3d9af27.ApiObjectMetadata(**metadata)
        if isinstance(spec, dict):
            spec = AccountingSpec(**spec)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__8a613c46686e1f5a4f0ca9074fa3923b9bdf4166301003f357b02d039780b66f)
            check_type(argname="argument metadata", value=metadata, expected_type=type_hints["metadata"])
            check_type(argname="argument spec", value=spec, expected_type=type_hints["spec"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if metadata is not None:
            self._values["metadata"] = metadata
        if spec is not None:
            self._values["spec"] = spec

    @builtins.property
    def metadata(self) -> typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"]:
        '''
        :schema: Accounting#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"], result)

    @builtins.property
    def spec(self) -> typing.Optional["AccountingSpec"]:
        '''AccountingSpec defines the desired state of Accounting.

        :schema: Accounting#spec
        '''
        result = self._values.get("spec")
        return typing.cast(typing.Optional["AccountingSpec"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "AccountingProps(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.AccountingSpec",
    jsii_struct_bases=[],
    name_mapping={
        "external": "external",
        "external_config": "externalConfig",
        "extra_conf": "extraConf",
        "jwks_key_ref": "jwksKeyRef",
        "jwt_hs256_key_ref": "jwtHs256KeyRef",
        "jwt_key_ref": "jwtKeyRef",
        "service": "service",
        "slurmdbd": "slurmdbd",
        "slurm_key_ref": "slurmKeyRef",
        "storage_config": "storageConfig",
        "template": "template",
    },
)
class AccountingSpec:
    def __init__(
        self,
        *,
        external: typing.Optional[builtins.bool] = None,
        external_config: typing.Optional[typing.Union["AccountingSpecExternalConfig", typing.Dict[builtins.str, typing.Any]]] = None,
        extra_conf: typing.Optional[builtins.str] = None,
        jwks_key_ref: typing.Optional[typing.Union["AccountingSpecJwksKeyRef", typing.Dict[builtins.str, typing.Any]]] = None,
        jwt_hs256_key_ref: typing.Optional[typing.Union["AccountingSpecJwtHs256KeyRef", typing.Dict[builtins.str, typing.Any]]] = None,
        jwt_key_ref: typing.Optional[typing.Union["AccountingSpecJwtKeyRef", typing.Dict[builtins.str, typing.Any]]] = None,
        service: typing.Optional[typing.Union["AccountingSpecService", typing.Dict[builtins.str, typing.Any]]] = None,
        slurmdbd: typing.Any = None,
        slurm_key_ref: typing.Optional[typing.Union["AccountingSpecSlurmKeyRef", typing.Dict[builtins.str, typing.Any]]] = None,
        storage_config: typing.Optional[typing.Union["AccountingSpecStorageConfig", typing.Dict[builtins.str, typing.Any]]] = None,
        template: typing.Optional[typing.Union["AccountingSpecTemplate", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''AccountingSpec defines the desired state of Accounting.

        :param external: external indicates if this component is external to Kubernetes or not. If true, then externalConfig is used and other fields are ignored.
        :param external_config: ExternalConfig describes how to communicate with this external component.
        :param extra_conf: ExtraConf is appended onto the end of the ``slurmdbd.conf`` file. Ref: https://slurm.schedmd.com/slurmdbd.conf.html.
        :param jwks_key_ref: Slurm ``auth/jwt`` JWKS key authentication.
        :param jwt_hs256_key_ref: Slurm ``auth/jwt`` JWT HS256 key authentication. Deprecated: use JwtKeyRef instead.
        :param jwt_key_ref: Slurm ``auth/jwt`` JWT key authentication.
        :param service: Service defines a template for a Kubernetes Service object.
        :param slurmdbd: The slurmdbd container configuration. See corev1.Container spec. Ref: https://github.com/kubernetes/api/blob/master/core/v1/types.go#L2885
        :param slurm_key_ref: Slurm ``auth/slurm`` key authentication.
        :param storage_config: StorageConfig is the configuration for mysql/mariadb access.
        :param template: Template is the object that describes the pod that will be created if insufficient replicas are detected. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#pod-template

        :schema: AccountingSpec
        '''
        if isinstance(external_config, dict):
            external_config = AccountingSpecExternalConfig(**external_config)
        if isinstance(jwks_key_ref, dict):
            jwks_key_ref = AccountingSpecJwksKeyRef(**jwks_key_ref)
        if isinstance(jwt_hs256_key_ref, dict):
            jwt_hs256_key_ref = AccountingSpecJwtHs256KeyRef(**jwt_hs256_key_ref)
        if isinstance(jwt_key_ref, dict):
            jwt_key_ref = AccountingSpecJwtKeyRef(**jwt_key_ref)
        if isinstance(service, dict):
            service = AccountingSpecService(**service)
        if isinstance(slurm_key_ref, dict):
            slurm_key_ref = AccountingSpecSlurmKeyRef(**slurm_key_ref)
        if isinstance(storage_config, dict):
            storage_config = AccountingSpecStorageConfig(**storage_config)
        if isinstance(template, dict):
            template = AccountingSpecTemplate(**template)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__d662e4304a8763059067102a178046382e1117884cb1120442c468fbff776fe9)
            check_type(argname="argument external", value=external, expected_type=type_hints["external"])
            check_type(argname="argument external_config", value=external_config, expected_type=type_hints["external_config"])
            check_type(argname="argument extra_conf", value=extra_conf, expected_type=type_hints["extra_conf"])
            check_type(argname="argument jwks_key_ref", value=jwks_key_ref, expected_type=type_hints["jwks_key_ref"])
            check_type(argname="argument jwt_hs256_key_ref", value=jwt_hs256_key_ref, expected_type=type_hints["jwt_hs256_key_ref"])
            check_type(argname="argument jwt_key_ref", value=jwt_key_ref, expected_type=type_hints["jwt_key_ref"])
            check_type(argname="argument service", value=service, expected_type=type_hints["service"])
            check_type(argname="argument slurmdbd", value=slurmdbd, expected_type=type_hints["slurmdbd"])
            check_type(argname="argument slurm_key_ref", value=slurm_key_ref, expected_type=type_hints["slurm_key_ref"])
            check_type(argname="argument storage_config", value=storage_config, expected_type=type_hints["storage_config"])
            check_type(argname="argument template", value=template, expected_type=type_hints["template"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if external is not None:
            self._values["external"] = external
        if external_config is not None:
            self._values["external_config"] = external_config
        if extra_conf is not None:
            self._values["extra_conf"] = extra_conf
        if jwks_key_ref is not None:
            self._values["jwks_key_ref"] = jwks_key_ref
        if jwt_hs256_key_ref is not None:
            self._values["jwt_hs256_key_ref"] = jwt_hs256_key_ref
        if jwt_key_ref is not None:
            self._values["jwt_key_ref"] = jwt_key_ref
        if service is not None:
            self._values["service"] = service
        if slurmdbd is not None:
            self._values["slurmdbd"] = slurmdbd
        if slurm_key_ref is not None:
            self._values["slurm_key_ref"] = slurm_key_ref
        if storage_config is not None:
            self._values["storage_config"] = storage_config
        if template is not None:
            self._values["template"] = template

    @builtins.property
    def external(self) -> typing.Optional[builtins.bool]:
        '''external indicates if this component is external to Kubernetes or not.

        If true, then externalConfig is used and other fields are ignored.

        :schema: AccountingSpec#external
        '''
        result = self._values.get("external")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def external_config(self) -> typing.Optional["AccountingSpecExternalConfig"]:
        '''ExternalConfig describes how to communicate with this external component.

        :schema: AccountingSpec#externalConfig
        '''
        result = self._values.get("external_config")
        return typing.cast(typing.Optional["AccountingSpecExternalConfig"], result)

    @builtins.property
    def extra_conf(self) -> typing.Optional[builtins.str]:
        '''ExtraConf is appended onto the end of the ``slurmdbd.conf`` file. Ref: https://slurm.schedmd.com/slurmdbd.conf.html.

        :schema: AccountingSpec#extraConf
        '''
        result = self._values.get("extra_conf")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def jwks_key_ref(self) -> typing.Optional["AccountingSpecJwksKeyRef"]:
        '''Slurm ``auth/jwt`` JWKS key authentication.

        :schema: AccountingSpec#jwksKeyRef
        '''
        result = self._values.get("jwks_key_ref")
        return typing.cast(typing.Optional["AccountingSpecJwksKeyRef"], result)

    @builtins.property
    def jwt_hs256_key_ref(self) -> typing.Optional["AccountingSpecJwtHs256KeyRef"]:
        '''Slurm ``auth/jwt`` JWT HS256 key authentication.

        Deprecated: use JwtKeyRef instead.

        :schema: AccountingSpec#jwtHs256KeyRef
        '''
        result = self._values.get("jwt_hs256_key_ref")
        return typing.cast(typing.Optional["AccountingSpecJwtHs256KeyRef"], result)

    @builtins.property
    def jwt_key_ref(self) -> typing.Optional["AccountingSpecJwtKeyRef"]:
        '''Slurm ``auth/jwt`` JWT key authentication.

        :schema: AccountingSpec#jwtKeyRef
        '''
        result = self._values.get("jwt_key_ref")
        return typing.cast(typing.Optional["AccountingSpecJwtKeyRef"], result)

    @builtins.property
    def service(self) -> typing.Optional["AccountingSpecService"]:
        '''Service defines a template for a Kubernetes Service object.

        :schema: AccountingSpec#service
        '''
        result = self._values.get("service")
        return typing.cast(typing.Optional["AccountingSpecService"], result)

    @builtins.property
    def slurmdbd(self) -> typing.Any:
        '''The slurmdbd container configuration.

        See corev1.Container spec.
        Ref: https://github.com/kubernetes/api/blob/master/core/v1/types.go#L2885

        :schema: AccountingSpec#slurmdbd
        '''
        result = self._values.get("slurmdbd")
        return typing.cast(typing.Any, result)

    @builtins.property
    def slurm_key_ref(self) -> typing.Optional["AccountingSpecSlurmKeyRef"]:
        '''Slurm ``auth/slurm`` key authentication.

        :schema: AccountingSpec#slurmKeyRef
        '''
        result = self._values.get("slurm_key_ref")
        return typing.cast(typing.Optional["AccountingSpecSlurmKeyRef"], result)

    @builtins.property
    def storage_config(self) -> typing.Optional["AccountingSpecStorageConfig"]:
        '''StorageConfig is the configuration for mysql/mariadb access.

        :schema: AccountingSpec#storageConfig
        '''
        result = self._values.get("storage_config")
        return typing.cast(typing.Optional["AccountingSpecStorageConfig"], result)

    @builtins.property
    def template(self) -> typing.Optional["AccountingSpecTemplate"]:
        '''Template is the object that describes the pod that will be created if insufficient replicas are detected.

        More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#pod-template

        :schema: AccountingSpec#template
        '''
        result = self._values.get("template")
        return typing.cast(typing.Optional["AccountingSpecTemplate"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "AccountingSpec(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.AccountingSpecExternalConfig",
    jsii_struct_bases=[],
    name_mapping={"host": "host", "port": "port"},
)
class AccountingSpecExternalConfig:
    def __init__(self, *, host: builtins.str, port: jsii.Number) -> None:
        '''ExternalConfig describes how to communicate with this external component.

        :param host: Host defines the hostname or IP address to communicate with.
        :param port: Port defines the port to communicate over.

        :schema: AccountingSpecExternalConfig
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__bd1fe886bf6d898eb21df8110fc31f71c93f4347dfee1b5bc59552b481fa55b3)
            check_type(argname="argument host", value=host, expected_type=type_hints["host"])
            check_type(argname="argument port", value=port, expected_type=type_hints["port"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "host": host,
            "port": port,
        }

    @builtins.property
    def host(self) -> builtins.str:
        '''Host defines the hostname or IP address to communicate with.

        :schema: AccountingSpecExternalConfig#host
        '''
        result = self._values.get("host")
        assert result is not None, "Required property 'host' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def port(self) -> jsii.Number:
        '''Port defines the port to communicate over.

        :schema: AccountingSpecExternalConfig#port
        '''
        result = self._values.get("port")
        assert result is not None, "Required property 'port' is missing"
        return typing.cast(jsii.Number, result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "AccountingSpecExternalConfig(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.AccountingSpecJwksKeyRef",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class AccountingSpecJwksKeyRef:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''Slurm ``auth/jwt`` JWKS key authentication.

        :param key: The key to select.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the ConfigMap or its key must be defined.

        :schema: AccountingSpecJwksKeyRef
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__6243a295e9f40779b9058247fac243676f61410b1ea734c5ce5b94ce38562176)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key to select.

        :schema: AccountingSpecJwksKeyRef#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: AccountingSpecJwksKeyRef#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the ConfigMap or its key must be defined.

        :schema: AccountingSpecJwksKeyRef#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "AccountingSpecJwksKeyRef(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.AccountingSpecJwtHs256KeyRef",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class AccountingSpecJwtHs256KeyRef:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''Slurm ``auth/jwt`` JWT HS256 key authentication.

        Deprecated: use JwtKeyRef instead.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: AccountingSpecJwtHs256KeyRef
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__9b7a94646f654905636da6b414c8a5143ae79cb2939a3bf958240527404df4e8)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: AccountingSpecJwtHs256KeyRef#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: AccountingSpecJwtHs256KeyRef#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: AccountingSpecJwtHs256KeyRef#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "AccountingSpecJwtHs256KeyRef(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.AccountingSpecJwtKeyRef",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class AccountingSpecJwtKeyRef:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''Slurm ``auth/jwt`` JWT key authentication.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: AccountingSpecJwtKeyRef
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__6e840dc94817bb1d826fa828b3f0f8d0d57955e850c9323e13865134125662d5)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: AccountingSpecJwtKeyRef#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: AccountingSpecJwtKeyRef#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: AccountingSpecJwtKeyRef#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "AccountingSpecJwtKeyRef(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.AccountingSpecService",
    jsii_struct_bases=[],
    name_mapping={
        "metadata": "metadata",
        "node_port": "nodePort",
        "port": "port",
        "spec": "spec",
    },
)
class AccountingSpecService:
    def __init__(
        self,
        *,
        metadata: typing.Optional[typing.Union["AccountingSpecServiceMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        node_port: typing.Optional[jsii.Number] = None,
        port: typing.Optional[jsii.Number] = None,
        spec: typing.Any = None,
    ) -> None:
        '''Service defines a template for a Kubernetes Service object.

        :param metadata: Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
        :param node_port: The port on each node on which this service is exposed when type is NodePort or LoadBalancer. Usually assigned by the system. If a value is specified, in-range, and not in use it will be used, otherwise the operation will fail. If not specified, a port will be allocated if this Service requires one. If this field is specified when creating a Service which does not need it, creation will fail.
        :param port: The external service port number.
        :param spec: ServiceSpec describes the attributes that a user creates on a service.

        :schema: AccountingSpecService
        '''
        if isinstance(metadata, dict):
            metadata = AccountingSpecServiceMetadata(**metadata)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__49c9e3055f6c5ba926ed93c42c0c0955e18f2e9a20374bfeb6cb3451eb85c6ca)
            check_type(argname="argument metadata", value=metadata, expected_type=type_hints["metadata"])
            check_type(argname="argument node_port", value=node_port, expected_type=type_hints["node_port"])
            check_type(argname="argument port", value=port, expected_type=type_hints["port"])
            check_type(argname="argument spec", value=spec, expected_type=type_hints["spec"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if metadata is not None:
            self._values["metadata"] = metadata
        if node_port is not None:
            self._values["node_port"] = node_port
        if port is not None:
            self._values["port"] = port
        if spec is not None:
            self._values["spec"] = spec

    @builtins.property
    def metadata(self) -> typing.Optional["AccountingSpecServiceMetadata"]:
        '''Standard object's metadata.

        More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata

        :schema: AccountingSpecService#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["AccountingSpecServiceMetadata"], result)

    @builtins.property
    def node_port(self) -> typing.Optional[jsii.Number]:
        '''The port on each node on which this service is exposed when type is NodePort or LoadBalancer.

        Usually assigned by the system. If a value is
        specified, in-range, and not in use it will be used, otherwise the
        operation will fail.  If not specified, a port will be allocated if this
        Service requires one.  If this field is specified when creating a
        Service which does not need it, creation will fail.

        :schema: AccountingSpecService#nodePort
        '''
        result = self._values.get("node_port")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def port(self) -> typing.Optional[jsii.Number]:
        '''The external service port number.

        :schema: AccountingSpecService#port
        '''
        result = self._values.get("port")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def spec(self) -> typing.Any:
        '''ServiceSpec describes the attributes that a user creates on a service.

        :schema: AccountingSpecService#spec
        '''
        result = self._values.get("spec")
        return typing.cast(typing.Any, result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "AccountingSpecService(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.AccountingSpecServiceMetadata",
    jsii_struct_bases=[],
    name_mapping={"annotations": "annotations", "labels": "labels"},
)
class AccountingSpecServiceMetadata:
    def __init__(
        self,
        *,
        annotations: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
        labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    ) -> None:
        '''Standard object's metadata.

        More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata

        :param annotations: Annotations is an unstructured key value map stored with a resource that may be set by external tools to store and retrieve arbitrary metadata. They are not queryable and should be preserved when modifying objects. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/annotations
        :param labels: Map of string keys and values that can be used to organize and categorize (scope and select) objects. May match selectors of replication controllers and services. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels

        :schema: AccountingSpecServiceMetadata
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__be5d95ea1230ae57b93b0d8a71106602c0708ff91260c4d2f26dc3e86b234477)
            check_type(argname="argument annotations", value=annotations, expected_type=type_hints["annotations"])
            check_type(argname="argument labels", value=labels, expected_type=type_hints["labels"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if annotations is not None:
            self._values["annotations"] = annotations
        if labels is not None:
            self._values["labels"] = labels

    @builtins.property
    def annotations(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''Annotations is an unstructured key value map stored with a resource that may be set by external tools to store and retrieve arbitrary metadata.

        They are not
        queryable and should be preserved when modifying objects.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/annotations

        :schema: AccountingSpecServiceMetadata#annotations
        '''
        result = self._values.get("annotations")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    @builtins.property
    def labels(self) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''Map of string keys and values that can be used to organize and categorize (scope and select) objects.

        May match selectors of replication controllers
        and services.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels

        :schema: AccountingSpecServiceMetadata#labels
        '''
        result = self._values.get("labels")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "AccountingSpecServiceMetadata(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.AccountingSpecSlurmKeyRef",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class AccountingSpecSlurmKeyRef:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''Slurm ``auth/slurm`` key authentication.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: AccountingSpecSlurmKeyRef
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__7c2d7a06ff50b9ddd6232d0f1297fa66dbbeefeb99c1f928cd1dd7c3b8e98e59)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: AccountingSpecSlurmKeyRef#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: AccountingSpecSlurmKeyRef#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: AccountingSpecSlurmKeyRef#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "AccountingSpecSlurmKeyRef(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.AccountingSpecStorageConfig",
    jsii_struct_bases=[],
    name_mapping={
        "host": "host",
        "password_key_ref": "passwordKeyRef",
        "database": "database",
        "port": "port",
        "username": "username",
    },
)
class AccountingSpecStorageConfig:
    def __init__(
        self,
        *,
        host: builtins.str,
        password_key_ref: typing.Union["AccountingSpecStorageConfigPasswordKeyRef", typing.Dict[builtins.str, typing.Any]],
        database: typing.Optional[builtins.str] = None,
        port: typing.Optional[jsii.Number] = None,
        username: typing.Optional[builtins.str] = None,
    ) -> None:
        '''StorageConfig is the configuration for mysql/mariadb access.

        :param host: Define the name of the host the database is running where we are going to store the data. Ref: https://slurm.schedmd.com/slurmdbd.conf.html#OPT_StorageHost
        :param password_key_ref: PasswordKeyRef is a reference to a secret containing the password for the user, specified by username, to access the given database. Ref: https://slurm.schedmd.com/slurmdbd.conf.html#OPT_StoragePass
        :param database: Specify the name of the database as the location where accounting records are written. Default is "slurm_acct_db". Ref: https://slurm.schedmd.com/slurmdbd.conf.html#OPT_StorageLoc Default: slurm_acct_db".
        :param port: The port number that the Slurm Database Daemon (slurmdbd) communicates with the database. Default is 3306. Ref: https://slurm.schedmd.com/slurmdbd.conf.html#OPT_StoragePort Default: 3306.
        :param username: Define the name of the user we are going to connect to the database with to store the job accounting data. Ref: https://slurm.schedmd.com/slurmdbd.conf.html#OPT_StorageUser

        :schema: AccountingSpecStorageConfig
        '''
        if isinstance(password_key_ref, dict):
            password_key_ref = AccountingSpecStorageConfigPasswordKeyRef(**password_key_ref)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__ed1d83f4ad3bd4398fba12c69af38bc12abf0b48724b0aa7b8b6b3e1babcd783)
            check_type(argname="argument host", value=host, expected_type=type_hints["host"])
            check_type(argname="argument password_key_ref", value=password_key_ref, expected_type=type_hints["password_key_ref"])
            check_type(argname="argument database", value=database, expected_type=type_hints["database"])
            check_type(argname="argument port", value=port, expected_type=type_hints["port"])
            check_type(argname="argument username", value=username, expected_type=type_hints["username"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "host": host,
            "password_key_ref": password_key_ref,
        }
        if database is not None:
            self._values["database"] = database
        if port is not None:
            self._values["port"] = port
        if username is not None:
            self._values["username"] = username

    @builtins.property
    def host(self) -> builtins.str:
        '''Define the name of the host the database is running where we are going to store the data.

        Ref: https://slurm.schedmd.com/slurmdbd.conf.html#OPT_StorageHost

        :schema: AccountingSpecStorageConfig#host
        '''
        result = self._values.get("host")
        assert result is not None, "Required property 'host' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def password_key_ref(self) -> "AccountingSpecStorageConfigPasswordKeyRef":
        '''PasswordKeyRef is a reference to a secret containing the password for the user, specified by username, to access the given database.

        Ref: https://slurm.schedmd.com/slurmdbd.conf.html#OPT_StoragePass

        :schema: AccountingSpecStorageConfig#passwordKeyRef
        '''
        result = self._values.get("password_key_ref")
        assert result is not None, "Required property 'password_key_ref' is missing"
        return typing.cast("AccountingSpecStorageConfigPasswordKeyRef", result)

    @builtins.property
    def database(self) -> typing.Optional[builtins.str]:
        '''Specify the name of the database as the location where accounting records are written.

        Default is "slurm_acct_db".
        Ref: https://slurm.schedmd.com/slurmdbd.conf.html#OPT_StorageLoc

        :default: slurm_acct_db".

        :schema: AccountingSpecStorageConfig#database
        '''
        result = self._values.get("database")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def port(self) -> typing.Optional[jsii.Number]:
        '''The port number that the Slurm Database Daemon (slurmdbd) communicates with the database.

        Default is 3306.
        Ref: https://slurm.schedmd.com/slurmdbd.conf.html#OPT_StoragePort

        :default: 3306.

        :schema: AccountingSpecStorageConfig#port
        '''
        result = self._values.get("port")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def username(self) -> typing.Optional[builtins.str]:
        '''Define the name of the user we are going to connect to the database with to store the job accounting data.

        Ref: https://slurm.schedmd.com/slurmdbd.conf.html#OPT_StorageUser

        :schema: AccountingSpecStorageConfig#username
        '''
        result = self._values.get("username")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "AccountingSpecStorageConfig(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.AccountingSpecStorageConfigPasswordKeyRef",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class AccountingSpecStorageConfigPasswordKeyRef:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''PasswordKeyRef is a reference to a secret containing the password for the user, specified by username, to access the given database.

        Ref: https://slurm.schedmd.com/slurmdbd.conf.html#OPT_StoragePass

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: AccountingSpecStorageConfigPasswordKeyRef
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__0e9e04eed8c692ee1daec4c6abc086914874d8787a7e201f7342a1e79690def6)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: AccountingSpecStorageConfigPasswordKeyRef#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: AccountingSpecStorageConfigPasswordKeyRef#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: AccountingSpecStorageConfigPasswordKeyRef#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "AccountingSpecStorageConfigPasswordKeyRef(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.AccountingSpecTemplate",
    jsii_struct_bases=[],
    name_mapping={"metadata": "metadata", "spec": "spec"},
)
class AccountingSpecTemplate:
    def __init__(
        self,
        *,
        metadata: typing.Optional[typing.Union["AccountingSpecTemplateMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Any = None,
    ) -> None:
        '''Template is the object that describes the pod that will be created if insufficient replicas are detected.

        More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#pod-template

        :param metadata: Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
        :param spec: PodSpec is a description of a pod.

        :schema: AccountingSpecTemplate
        '''
        if isinstance(metadata, dict):
            metadata = AccountingSpecTemplateMetadata(**metadata)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__a8706b6b663af1cc11dc0ae6acf009c4de681d6a141db803e0d1ebab1b057782)
            check_type(argname="argument metadata", value=metadata, expected_type=type_hints["metadata"])
            check_type(argname="argument spec", value=spec, expected_type=type_hints["spec"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if metadata is not None:
            self._values["metadata"] = metadata
        if spec is not None:
            self._values["spec"] = spec

    @builtins.property
    def metadata(self) -> typing.Optional["AccountingSpecTemplateMetadata"]:
        '''Standard object's metadata.

        More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata

        :schema: AccountingSpecTemplate#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["AccountingSpecTemplateMetadata"], result)

    @builtins.property
    def spec(self) -> typing.Any:
        '''PodSpec is a description of a pod.

        :schema: AccountingSpecTemplate#spec
        '''
        result = self._values.get("spec")
        return typing.cast(typing.Any, result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "AccountingSpecTemplate(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.AccountingSpecTemplateMetadata",
    jsii_struct_bases=[],
    name_mapping={"annotations": "annotations", "labels": "labels"},
)
class AccountingSpecTemplateMetadata:
    def __init__(
        self,
        *,
        annotations: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
        labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    ) -> None:
        '''Standard object's metadata.

        More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata

        :param annotations: Annotations is an unstructured key value map stored with a resource that may be set by external tools to store and retrieve arbitrary metadata. They are not queryable and should be preserved when modifying objects. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/annotations
        :param labels: Map of string keys and values that can be used to organize and categorize (scope and select) objects. May match selectors of replication controllers and services. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels

        :schema: AccountingSpecTemplateMetadata
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__2aed92b8bb0cd340fe8cfb30ba72449579f31e394f10e266024d6c445d74b5f7)
            check_type(argname="argument annotations", value=annotations, expected_type=type_hints["annotations"])
            check_type(argname="argument labels", value=labels, expected_type=type_hints["labels"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if annotations is not None:
            self._values["annotations"] = annotations
        if labels is not None:
            self._values["labels"] = labels

    @builtins.property
    def annotations(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''Annotations is an unstructured key value map stored with a resource that may be set by external tools to store and retrieve arbitrary metadata.

        They are not
        queryable and should be preserved when modifying objects.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/annotations

        :schema: AccountingSpecTemplateMetadata#annotations
        '''
        result = self._values.get("annotations")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    @builtins.property
    def labels(self) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''Map of string keys and values that can be used to organize and categorize (scope and select) objects.

        May match selectors of replication controllers
        and services.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels

        :schema: AccountingSpecTemplateMetadata#labels
        '''
        result = self._values.get("labels")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "AccountingSpecTemplateMetadata(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class Controller(
    _cdk8s_d3d9af27.ApiObject,
    metaclass=jsii.JSIIMeta,
    jsii_type="netslurmslinky.Controller",
):
    '''Controller is the Schema for the controllers API.

    :schema: Controller
    '''

    def __init__(
        self,
        scope: "_constructs_77d1e7e8.Construct",
        id: builtins.str,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["ControllerSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Defines a "Controller" API object.

        :param scope: the scope in which to define this object.
        :param id: a scope-local name for the object.
        :param metadata: 
        :param spec: ControllerSpec defines the desired state of Controller.
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__5fb7aab0939669f269b06471aa25035cb203e3787c6d72e40e704e363b1a16f4)
            check_type(argname="argument scope", value=scope, expected_type=type_hints["scope"])
            check_type(argname="argument id", value=id, expected_type=type_hints["id"])
        props = ControllerProps(metadata=metadata, spec=spec)

        jsii.create(self.__class__, self, [scope, id, props])

    @jsii.member(jsii_name="manifest")
    @builtins.classmethod
    def manifest(
        cls,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["ControllerSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> typing.Any:
        '''Renders a Kubernetes manifest for "Controller".

        This can be used to inline resource manifests inside other objects (e.g. as templates).

        :param metadata: 
        :param spec: ControllerSpec defines the desired state of Controller.
        '''
        props = ControllerProps(metadata=metadata, spec=spec)

        return typing.cast(typing.Any, jsii.sinvoke(cls, "manifest", [props]))

    @jsii.member(jsii_name="toJson")
    def to_json(self) -> typing.Any:
        '''Renders the object to Kubernetes JSON.'''
        return typing.cast(typing.Any, jsii.invoke(self, "toJson", []))

    @jsii.python.classproperty
    @jsii.member(jsii_name="GVK")
    def GVK(cls) -> "_cdk8s_d3d9af27.GroupVersionKind":
        '''Returns the apiVersion and kind for "Controller".'''
        return typing.cast("_cdk8s_d3d9af27.GroupVersionKind", jsii.sget(cls, "GVK"))


@jsii.data_type(
    jsii_type="netslurmslinky.ControllerProps",
    jsii_struct_bases=[],
    name_mapping={"metadata": "metadata", "spec": "spec"},
)
class ControllerProps:
    def __init__(
        self,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["ControllerSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Controller is the Schema for the controllers API.

        :param metadata: 
        :param spec: ControllerSpec defines the desired state of Controller.

        :schema: Controller
        '''
        if isinstance(metadata, dict):
            metadata = _cdk8s_d3d9af27.ApiObjectMetadata(**metadata)
        if isinstance(spec, dict):
            spec = ControllerSpec(**spec)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__2418ede1dded9b91c0de395556f79f5ec9a3faa46529a7661c4b8edd0003f4f5)
            check_type(argname="argument metadata", value=metadata, expected_type=type_hints["metadata"])
            check_type(argname="argument spec", value=spec, expected_type=type_hints["spec"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if metadata is not None:
            self._values["metadata"] = metadata
        if spec is not None:
            self._values["spec"] = spec

    @builtins.property
    def metadata(self) -> typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"]:
        '''
        :schema: Controller#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"], result)

    @builtins.property
    def spec(self) -> typing.Optional["ControllerSpec"]:
        '''ControllerSpec defines the desired state of Controller.

        :schema: Controller#spec
        '''
        result = self._values.get("spec")
        return typing.cast(typing.Optional["ControllerSpec"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ControllerProps(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.ControllerSpec",
    jsii_struct_bases=[],
    name_mapping={
        "accounting_ref": "accountingRef",
        "cluster_name": "clusterName",
        "config_file_refs": "configFileRefs",
        "epilog_script_refs": "epilogScriptRefs",
        "epilog_slurmctld_script_refs": "epilogSlurmctldScriptRefs",
        "external": "external",
        "external_config": "externalConfig",
        "extra_conf": "extraConf",
        "inplace_reconfigure": "inplaceReconfigure",
        "jwks_key_ref": "jwksKeyRef",
        "jwt_hs256_key_ref": "jwtHs256KeyRef",
        "jwt_key_ref": "jwtKeyRef",
        "logfile": "logfile",
        "metrics": "metrics",
        "persistence": "persistence",
        "prolog_script_refs": "prologScriptRefs",
        "prolog_slurmctld_script_refs": "prologSlurmctldScriptRefs",
        "reconfigure": "reconfigure",
        "service": "service",
        "slurmctld": "slurmctld",
        "slurm_key_ref": "slurmKeyRef",
        "template": "template",
    },
)
class ControllerSpec:
    def __init__(
        self,
        *,
        accounting_ref: typing.Optional[typing.Union["ControllerSpecAccountingRef", typing.Dict[builtins.str, typing.Any]]] = None,
        cluster_name: typing.Optional[builtins.str] = None,
        config_file_refs: typing.Optional[typing.Sequence[typing.Union["ControllerSpecConfigFileRefs", typing.Dict[builtins.str, typing.Any]]]] = None,
        epilog_script_refs: typing.Optional[typing.Sequence[typing.Union["ControllerSpecEpilogScriptRefs", typing.Dict[builtins.str, typing.Any]]]] = None,
        epilog_slurmctld_script_refs: typing.Optional[typing.Sequence[typing.Union["ControllerSpecEpilogSlurmctldScriptRefs", typing.Dict[builtins.str, typing.Any]]]] = None,
        external: typing.Optional[builtins.bool] = None,
        external_config: typing.Optional[typing.Union["ControllerSpecExternalConfig", typing.Dict[builtins.str, typing.Any]]] = None,
        extra_conf: typing.Optional[builtins.str] = None,
        inplace_reconfigure: typing.Optional[builtins.bool] = None,
        jwks_key_ref: typing.Optional[typing.Union["ControllerSpecJwksKeyRef", typing.Dict[builtins.str, typing.Any]]] = None,
        jwt_hs256_key_ref: typing.Optional[typing.Union["ControllerSpecJwtHs256KeyRef", typing.Dict[builtins.str, typing.Any]]] = None,
        jwt_key_ref: typing.Optional[typing.Union["ControllerSpecJwtKeyRef", typing.Dict[builtins.str, typing.Any]]] = None,
        logfile: typing.Any = None,
        metrics: typing.Optional[typing.Union["ControllerSpecMetrics", typing.Dict[builtins.str, typing.Any]]] = None,
        persistence: typing.Optional[typing.Union["ControllerSpecPersistence", typing.Dict[builtins.str, typing.Any]]] = None,
        prolog_script_refs: typing.Optional[typing.Sequence[typing.Union["ControllerSpecPrologScriptRefs", typing.Dict[builtins.str, typing.Any]]]] = None,
        prolog_slurmctld_script_refs: typing.Optional[typing.Sequence[typing.Union["ControllerSpecPrologSlurmctldScriptRefs", typing.Dict[builtins.str, typing.Any]]]] = None,
        reconfigure: typing.Any = None,
        service: typing.Optional[typing.Union["ControllerSpecService", typing.Dict[builtins.str, typing.Any]]] = None,
        slurmctld: typing.Any = None,
        slurm_key_ref: typing.Optional[typing.Union["ControllerSpecSlurmKeyRef", typing.Dict[builtins.str, typing.Any]]] = None,
        template: typing.Optional[typing.Union["ControllerSpecTemplate", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''ControllerSpec defines the desired state of Controller.

        :param accounting_ref: accountingRef is a reference to the Accounting CR to which this has membership.
        :param cluster_name: The Slurm ClusterName, which uniquely identifies the Slurm Cluster to itself and accounting. Ref: https://slurm.schedmd.com/slurm.conf.html#OPT_ClusterName
        :param config_file_refs: ConfigFileRefs is a list of ConfigMap references containing files to be mounted in ``/etc/slurm``. Ref: https://slurm.schedmd.com/slurm.conf.html
        :param epilog_script_refs: EpilogScriptRefs is a list of epilog scripts to be mounted in ``/etc/slurm``. Ref: https://slurm.schedmd.com/prolog_epilog.html
        :param epilog_slurmctld_script_refs: EpilogSlurmctldScriptRefs is a list of EpilogSlurmctld scripts to be mounted in ``/etc/slurm``. Ref: https://slurm.schedmd.com/slurm.conf.html#OPT_EpilogSlurmctld
        :param external: external indicates if this component is external to Kubernetes or not. If true, then externalConfig is used and other fields are ignored.
        :param external_config: ExternalConfig describes how to communicate with this external component.
        :param extra_conf: ExtraConf is appended onto the end of the ``slurm.conf`` file. Ref: https://slurm.schedmd.com/slurm.conf.html.
        :param inplace_reconfigure: Indicates how reconfigure is handled when Slurm configuration changes. When true, the reconfigure sidecar issue reconfigures without pod recreate. When false, the pod will be recreated and reconfigure issued only on startup.
        :param jwks_key_ref: Slurm ``auth/jwt`` JWKS key authentication.
        :param jwt_hs256_key_ref: Slurm ``auth/jwt`` JWT HS256 key authentication. Deprecated: use JwtKeyRef instead.
        :param jwt_key_ref: Slurm ``auth/jwt`` JWT key authentication.
        :param logfile: The logfile sidecar configuration.
        :param metrics: Metrics defines the metric collection configuration.
        :param persistence: Persistence defines a persistent volume for the slurm controller to store its save-state. Used to recover from system failures or from pod upgrades.
        :param prolog_script_refs: PrologScriptRefs is a list of prolog scripts to be mounted in ``/etc/slurm``. Ref: https://slurm.schedmd.com/prolog_epilog.html
        :param prolog_slurmctld_script_refs: PrologSlurmctldScriptRefs is a list of PrologSlurmctld scripts to be mounted in ``/etc/slurm``. Ref: https://slurm.schedmd.com/slurm.conf.html#OPT_PrologSlurmctld
        :param reconfigure: The reconfigure container configuration. If not empty, then slurmctld will reconfigure in-place, without recreating the pod when Slurm configuration changes. Ref: https://slurm.schedmd.com/scontrol.html#OPT_reconfigure
        :param service: Service defines a template for a Kubernetes Service object.
        :param slurmctld: The slurmctld container configuration. See corev1.Container spec. Ref: https://github.com/kubernetes/api/blob/master/core/v1/types.go#L2885
        :param slurm_key_ref: Slurm ``auth/slurm`` key authentication.
        :param template: Template is the object that describes the pod that will be created if insufficient replicas are detected. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#pod-template

        :schema: ControllerSpec
        '''
        if isinstance(accounting_ref, dict):
            accounting_ref = ControllerSpecAccountingRef(**accounting_ref)
        if isinstance(external_config, dict):
            external_config = ControllerSpecExternalConfig(**external_config)
        if isinstance(jwks_key_ref, dict):
            jwks_key_ref = ControllerSpecJwksKeyRef(**jwks_key_ref)
        if isinstance(jwt_hs256_key_ref, dict):
            jwt_hs256_key_ref = ControllerSpecJwtHs256KeyRef(**jwt_hs256_key_ref)
        if isinstance(jwt_key_ref, dict):
            jwt_key_ref = ControllerSpecJwtKeyRef(**jwt_key_ref)
        if isinstance(metrics, dict):
            metrics = ControllerSpecMetrics(**metrics)
        if isinstance(persistence, dict):
            persistence = ControllerSpecPersistence(**persistence)
        if isinstance(service, dict):
            service = ControllerSpecService(**service)
        if isinstance(slurm_key_ref, dict):
            slurm_key_ref = ControllerSpecSlurmKeyRef(**slurm_key_ref)
        if isinstance(template, dict):
            template = ControllerSpecTemplate(**template)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__9d2dfa07f9bda322459da53aa35d8e842dd0f96aed2bffb02dc1e05cff74f2d7)
            check_type(argname="argument accounting_ref", value=accounting_ref, expected_type=type_hints["accounting_ref"])
            check_type(argname="argument cluster_name", value=cluster_name, expected_type=type_hints["cluster_name"])
            check_type(argname="argument config_file_refs", value=config_file_refs, expected_type=type_hints["config_file_refs"])
            check_type(argname="argument epilog_script_refs", value=epilog_script_refs, expected_type=type_hints["epilog_script_refs"])
            check_type(argname="argument epilog_slurmctld_script_refs", value=epilog_slurmctld_script_refs, expected_type=type_hints["epilog_slurmctld_script_refs"])
            check_type(argname="argument external", value=external, expected_type=type_hints["external"])
            check_type(argname="argument external_config", value=external_config, expected_type=type_hints["external_config"])
            check_type(argname="argument extra_conf", value=extra_conf, expected_type=type_hints["extra_conf"])
            check_type(argname="argument inplace_reconfigure", value=inplace_reconfigure, expected_type=type_hints["inplace_reconfigure"])
            check_type(argname="argument jwks_key_ref", value=jwks_key_ref, expected_type=type_hints["jwks_key_ref"])
            check_type(argname="argument jwt_hs256_key_ref", value=jwt_hs256_key_ref, expected_type=type_hints["jwt_hs256_key_ref"])
            check_type(argname="argument jwt_key_ref", value=jwt_key_ref, expected_type=type_hints["jwt_key_ref"])
            check_type(argname="argument logfile", value=logfile, expected_type=type_hints["logfile"])
            check_type(argname="argument metrics", value=metrics, expected_type=type_hints["metrics"])
            check_type(argname="argument persistence", value=persistence, expected_type=type_hints["persistence"])
            check_type(argname="argument prolog_script_refs", value=prolog_script_refs, expected_type=type_hints["prolog_script_refs"])
            check_type(argname="argument prolog_slurmctld_script_refs", value=prolog_slurmctld_script_refs, expected_type=type_hints["prolog_slurmctld_script_refs"])
            check_type(argname="argument reconfigure", value=reconfigure, expected_type=type_hints["reconfigure"])
            check_type(argname="argument service", value=service, expected_type=type_hints["service"])
            check_type(argname="argument slurmctld", value=slurmctld, expected_type=type_hints["slurmctld"])
            check_type(argname="argument slurm_key_ref", value=slurm_key_ref, expected_type=type_hints["slurm_key_ref"])
            check_type(argname="argument template", value=template, expected_type=type_hints["template"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if accounting_ref is not None:
            self._values["accounting_ref"] = accounting_ref
        if cluster_name is not None:
            self._values["cluster_name"] = cluster_name
        if config_file_refs is not None:
            self._values["config_file_refs"] = config_file_refs
        if epilog_script_refs is not None:
            self._values["epilog_script_refs"] = epilog_script_refs
        if epilog_slurmctld_script_refs is not None:
            self._values["epilog_slurmctld_script_refs"] = epilog_slurmctld_script_refs
        if external is not None:
            self._values["external"] = external
        if external_config is not None:
            self._values["external_config"] = external_config
        if extra_conf is not None:
            self._values["extra_conf"] = extra_conf
        if inplace_reconfigure is not None:
            self._values["inplace_reconfigure"] = inplace_reconfigure
        if jwks_key_ref is not None:
            self._values["jwks_key_ref"] = jwks_key_ref
        if jwt_hs256_key_ref is not None:
            self._values["jwt_hs256_key_ref"] = jwt_hs256_key_ref
        if jwt_key_ref is not None:
            self._values["jwt_key_ref"] = jwt_key_ref
        if logfile is not None:
            self._values["logfile"] = logfile
        if metrics is not None:
            self._values["metrics"] = metrics
        if persistence is not None:
            self._values["persistence"] = persistence
        if prolog_script_refs is not None:
            self._values["prolog_script_refs"] = prolog_script_refs
        if prolog_slurmctld_script_refs is not None:
            self._values["prolog_slurmctld_script_refs"] = prolog_slurmctld_script_refs
        if reconfigure is not None:
            self._values["reconfigure"] = reconfigure
        if service is not None:
            self._values["service"] = service
        if slurmctld is not None:
            self._values["slurmctld"] = slurmctld
        if slurm_key_ref is not None:
            self._values["slurm_key_ref"] = slurm_key_ref
        if template is not None:
            self._values["template"] = template

    @builtins.property
    def accounting_ref(self) -> typing.Optional["ControllerSpecAccountingRef"]:
        '''accountingRef is a reference to the Accounting CR to which this has membership.

        :schema: ControllerSpec#accountingRef
        '''
        result = self._values.get("accounting_ref")
        return typing.cast(typing.Optional["ControllerSpecAccountingRef"], result)

    @builtins.property
    def cluster_name(self) -> typing.Optional[builtins.str]:
        '''The Slurm ClusterName, which uniquely identifies the Slurm Cluster to itself and accounting.

        Ref: https://slurm.schedmd.com/slurm.conf.html#OPT_ClusterName

        :schema: ControllerSpec#clusterName
        '''
        result = self._values.get("cluster_name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def config_file_refs(
        self,
    ) -> typing.Optional[typing.List["ControllerSpecConfigFileRefs"]]:
        '''ConfigFileRefs is a list of ConfigMap references containing files to be mounted in ``/etc/slurm``.

        Ref: https://slurm.schedmd.com/slurm.conf.html

        :schema: ControllerSpec#configFileRefs
        '''
        result = self._values.get("config_file_refs")
        return typing.cast(typing.Optional[typing.List["ControllerSpecConfigFileRefs"]], result)

    @builtins.property
    def epilog_script_refs(
        self,
    ) -> typing.Optional[typing.List["ControllerSpecEpilogScriptRefs"]]:
        '''EpilogScriptRefs is a list of epilog scripts to be mounted in ``/etc/slurm``.

        Ref: https://slurm.schedmd.com/prolog_epilog.html

        :schema: ControllerSpec#epilogScriptRefs
        '''
        result = self._values.get("epilog_script_refs")
        return typing.cast(typing.Optional[typing.List["ControllerSpecEpilogScriptRefs"]], result)

    @builtins.property
    def epilog_slurmctld_script_refs(
        self,
    ) -> typing.Optional[typing.List["ControllerSpecEpilogSlurmctldScriptRefs"]]:
        '''EpilogSlurmctldScriptRefs is a list of EpilogSlurmctld scripts to be mounted in ``/etc/slurm``.

        Ref: https://slurm.schedmd.com/slurm.conf.html#OPT_EpilogSlurmctld

        :schema: ControllerSpec#epilogSlurmctldScriptRefs
        '''
        result = self._values.get("epilog_slurmctld_script_refs")
        return typing.cast(typing.Optional[typing.List["ControllerSpecEpilogSlurmctldScriptRefs"]], result)

    @builtins.property
    def external(self) -> typing.Optional[builtins.bool]:
        '''external indicates if this component is external to Kubernetes or not.

        If true, then externalConfig is used and other fields are ignored.

        :schema: ControllerSpec#external
        '''
        result = self._values.get("external")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def external_config(self) -> typing.Optional["ControllerSpecExternalConfig"]:
        '''ExternalConfig describes how to communicate with this external component.

        :schema: ControllerSpec#externalConfig
        '''
        result = self._values.get("external_config")
        return typing.cast(typing.Optional["ControllerSpecExternalConfig"], result)

    @builtins.property
    def extra_conf(self) -> typing.Optional[builtins.str]:
        '''ExtraConf is appended onto the end of the ``slurm.conf`` file. Ref: https://slurm.schedmd.com/slurm.conf.html.

        :schema: ControllerSpec#extraConf
        '''
        result = self._values.get("extra_conf")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def inplace_reconfigure(self) -> typing.Optional[builtins.bool]:
        '''Indicates how reconfigure is handled when Slurm configuration changes.

        When true, the reconfigure sidecar issue reconfigures without pod recreate.
        When false, the pod will be recreated and reconfigure issued only on startup.

        :schema: ControllerSpec#inplaceReconfigure
        '''
        result = self._values.get("inplace_reconfigure")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def jwks_key_ref(self) -> typing.Optional["ControllerSpecJwksKeyRef"]:
        '''Slurm ``auth/jwt`` JWKS key authentication.

        :schema: ControllerSpec#jwksKeyRef
        '''
        result = self._values.get("jwks_key_ref")
        return typing.cast(typing.Optional["ControllerSpecJwksKeyRef"], result)

    @builtins.property
    def jwt_hs256_key_ref(self) -> typing.Optional["ControllerSpecJwtHs256KeyRef"]:
        '''Slurm ``auth/jwt`` JWT HS256 key authentication.

        Deprecated: use JwtKeyRef instead.

        :schema: ControllerSpec#jwtHs256KeyRef
        '''
        result = self._values.get("jwt_hs256_key_ref")
        return typing.cast(typing.Optional["ControllerSpecJwtHs256KeyRef"], result)

    @builtins.property
    def jwt_key_ref(self) -> typing.Optional["ControllerSpecJwtKeyRef"]:
        '''Slurm ``auth/jwt`` JWT key authentication.

        :schema: ControllerSpec#jwtKeyRef
        '''
        result = self._values.get("jwt_key_ref")
        return typing.cast(typing.Optional["ControllerSpecJwtKeyRef"], result)

    @builtins.property
    def logfile(self) -> typing.Any:
        '''The logfile sidecar configuration.

        :schema: ControllerSpec#logfile
        '''
        result = self._values.get("logfile")
        return typing.cast(typing.Any, result)

    @builtins.property
    def metrics(self) -> typing.Optional["ControllerSpecMetrics"]:
        '''Metrics defines the metric collection configuration.

        :schema: ControllerSpec#metrics
        '''
        result = self._values.get("metrics")
        return typing.cast(typing.Optional["ControllerSpecMetrics"], result)

    @builtins.property
    def persistence(self) -> typing.Optional["ControllerSpecPersistence"]:
        '''Persistence defines a persistent volume for the slurm controller to store its save-state.

        Used to recover from system failures or from pod upgrades.

        :schema: ControllerSpec#persistence
        '''
        result = self._values.get("persistence")
        return typing.cast(typing.Optional["ControllerSpecPersistence"], result)

    @builtins.property
    def prolog_script_refs(
        self,
    ) -> typing.Optional[typing.List["ControllerSpecPrologScriptRefs"]]:
        '''PrologScriptRefs is a list of prolog scripts to be mounted in ``/etc/slurm``.

        Ref: https://slurm.schedmd.com/prolog_epilog.html

        :schema: ControllerSpec#prologScriptRefs
        '''
        result = self._values.get("prolog_script_refs")
        return typing.cast(typing.Optional[typing.List["ControllerSpecPrologScriptRefs"]], result)

    @builtins.property
    def prolog_slurmctld_script_refs(
        self,
    ) -> typing.Optional[typing.List["ControllerSpecPrologSlurmctldScriptRefs"]]:
        '''PrologSlurmctldScriptRefs is a list of PrologSlurmctld scripts to be mounted in ``/etc/slurm``.

        Ref: https://slurm.schedmd.com/slurm.conf.html#OPT_PrologSlurmctld

        :schema: ControllerSpec#prologSlurmctldScriptRefs
        '''
        result = self._values.get("prolog_slurmctld_script_refs")
        return typing.cast(typing.Optional[typing.List["ControllerSpecPrologSlurmctldScriptRefs"]], result)

    @builtins.property
    def reconfigure(self) -> typing.Any:
        '''The reconfigure container configuration.

        If not empty, then slurmctld will reconfigure in-place, without recreating
        the pod when Slurm configuration changes.
        Ref: https://slurm.schedmd.com/scontrol.html#OPT_reconfigure

        :schema: ControllerSpec#reconfigure
        '''
        result = self._values.get("reconfigure")
        return typing.cast(typing.Any, result)

    @builtins.property
    def service(self) -> typing.Optional["ControllerSpecService"]:
        '''Service defines a template for a Kubernetes Service object.

        :schema: ControllerSpec#service
        '''
        result = self._values.get("service")
        return typing.cast(typing.Optional["ControllerSpecService"], result)

    @builtins.property
    def slurmctld(self) -> typing.Any:
        '''The slurmctld container configuration.

        See corev1.Container spec.
        Ref: https://github.com/kubernetes/api/blob/master/core/v1/types.go#L2885

        :schema: ControllerSpec#slurmctld
        '''
        result = self._values.get("slurmctld")
        return typing.cast(typing.Any, result)

    @builtins.property
    def slurm_key_ref(self) -> typing.Optional["ControllerSpecSlurmKeyRef"]:
        '''Slurm ``auth/slurm`` key authentication.

        :schema: ControllerSpec#slurmKeyRef
        '''
        result = self._values.get("slurm_key_ref")
        return typing.cast(typing.Optional["ControllerSpecSlurmKeyRef"], result)

    @builtins.property
    def template(self) -> typing.Optional["ControllerSpecTemplate"]:
        '''Template is the object that describes the pod that will be created if insufficient replicas are detected.

        More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#pod-template

        :schema: ControllerSpec#template
        '''
        result = self._values.get("template")
        return typing.cast(typing.Optional["ControllerSpecTemplate"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ControllerSpec(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.ControllerSpecAccountingRef",
    jsii_struct_bases=[],
    name_mapping={"name": "name"},
)
class ControllerSpecAccountingRef:
    def __init__(self, *, name: typing.Optional[builtins.str] = None) -> None:
        '''accountingRef is a reference to the Accounting CR to which this has membership.

        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ControllerSpecAccountingRef
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__affa3f8b99e9c62a880aec8c40cd70e9bd8951cae7548b2a4d8eb135e4cdc24f)
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if name is not None:
            self._values["name"] = name

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ControllerSpecAccountingRef#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ControllerSpecAccountingRef(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.ControllerSpecConfigFileRefs",
    jsii_struct_bases=[],
    name_mapping={"name": "name"},
)
class ControllerSpecConfigFileRefs:
    def __init__(self, *, name: typing.Optional[builtins.str] = None) -> None:
        '''LocalObjectReference contains enough information to let you locate the referenced object inside the same namespace.

        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ControllerSpecConfigFileRefs
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__14383b8ae7f79c56468b198a23de3391fd91badb6430a453e04fc5b4ae39eeb2)
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if name is not None:
            self._values["name"] = name

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ControllerSpecConfigFileRefs#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ControllerSpecConfigFileRefs(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.ControllerSpecEpilogScriptRefs",
    jsii_struct_bases=[],
    name_mapping={"name": "name"},
)
class ControllerSpecEpilogScriptRefs:
    def __init__(self, *, name: typing.Optional[builtins.str] = None) -> None:
        '''LocalObjectReference contains enough information to let you locate the referenced object inside the same namespace.

        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ControllerSpecEpilogScriptRefs
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__1d80ad0faf9f6476101eb87d8ba9f7d1f74972d8760bf720c69afd5f1432565c)
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if name is not None:
            self._values["name"] = name

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ControllerSpecEpilogScriptRefs#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ControllerSpecEpilogScriptRefs(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.ControllerSpecEpilogSlurmctldScriptRefs",
    jsii_struct_bases=[],
    name_mapping={"name": "name"},
)
class ControllerSpecEpilogSlurmctldScriptRefs:
    def __init__(self, *, name: typing.Optional[builtins.str] = None) -> None:
        '''LocalObjectReference contains enough information to let you locate the referenced object inside the same namespace.

        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ControllerSpecEpilogSlurmctldScriptRefs
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__c5e6e5fff8b144b1e51f129a6903a6f818611c761f0f52d072e163996b634022)
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if name is not None:
            self._values["name"] = name

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ControllerSpecEpilogSlurmctldScriptRefs#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ControllerSpecEpilogSlurmctldScriptRefs(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.ControllerSpecExternalConfig",
    jsii_struct_bases=[],
    name_mapping={"host": "host", "port": "port"},
)
class ControllerSpecExternalConfig:
    def __init__(self, *, host: builtins.str, port: jsii.Number) -> None:
        '''ExternalConfig describes how to communicate with this external component.

        :param host: Host defines the hostname or IP address to communicate with.
        :param port: Port defines the port to communicate over.

        :schema: ControllerSpecExternalConfig
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__f934085ff2fcf428ffb3f451ed985518d543e3dcd4c92285b433fc717d58efab)
            check_type(argname="argument host", value=host, expected_type=type_hints["host"])
            check_type(argname="argument port", value=port, expected_type=type_hints["port"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "host": host,
            "port": port,
        }

    @builtins.property
    def host(self) -> builtins.str:
        '''Host defines the hostname or IP address to communicate with.

        :schema: ControllerSpecExternalConfig#host
        '''
        result = self._values.get("host")
        assert result is not None, "Required property 'host' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def port(self) -> jsii.Number:
        '''Port defines the port to communicate over.

        :schema: ControllerSpecExternalConfig#port
        '''
        result = self._values.get("port")
        assert result is not None, "Required property 'port' is missing"
        return typing.cast(jsii.Number, result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ControllerSpecExternalConfig(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.ControllerSpecJwksKeyRef",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class ControllerSpecJwksKeyRef:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''Slurm ``auth/jwt`` JWKS key authentication.

        :param key: The key to select.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the ConfigMap or its key must be defined.

        :schema: ControllerSpecJwksKeyRef
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__674e9d3141c3868ae402ed0d62bc8b17ba3d10507f8bc3fbc2c53fd63e5645b7)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key to select.

        :schema: ControllerSpecJwksKeyRef#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ControllerSpecJwksKeyRef#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the ConfigMap or its key must be defined.

        :schema: ControllerSpecJwksKeyRef#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ControllerSpecJwksKeyRef(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.ControllerSpecJwtHs256KeyRef",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class ControllerSpecJwtHs256KeyRef:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''Slurm ``auth/jwt`` JWT HS256 key authentication.

        Deprecated: use JwtKeyRef instead.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: ControllerSpecJwtHs256KeyRef
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__99f446787e22cadc773c8b6dc79eeea43ec8a5bed1f93758a2162a25cdc8052e)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: ControllerSpecJwtHs256KeyRef#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ControllerSpecJwtHs256KeyRef#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: ControllerSpecJwtHs256KeyRef#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ControllerSpecJwtHs256KeyRef(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.ControllerSpecJwtKeyRef",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class ControllerSpecJwtKeyRef:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''Slurm ``auth/jwt`` JWT key authentication.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: ControllerSpecJwtKeyRef
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__f94844f9a988e9fec0afc14eca14b0b5c430eedf5e5a91690973033c124f29d6)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: ControllerSpecJwtKeyRef#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ControllerSpecJwtKeyRef#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: ControllerSpecJwtKeyRef#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ControllerSpecJwtKeyRef(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.ControllerSpecMetrics",
    jsii_struct_bases=[],
    name_mapping={"enabled": "enabled", "service_monitor": "serviceMonitor"},
)
class ControllerSpecMetrics:
    def __init__(
        self,
        *,
        enabled: typing.Optional[builtins.bool] = None,
        service_monitor: typing.Optional[typing.Union["ControllerSpecMetricsServiceMonitor", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Metrics defines the metric collection configuration.

        :param enabled: Enabled controls if metrics will be configured.
        :param service_monitor: ServiceMonitor defines a Prometheus service monitor to metrics discovery.

        :schema: ControllerSpecMetrics
        '''
        if isinstance(service_monitor, dict):
            service_monitor = ControllerSpecMetricsServiceMonitor(**service_monitor)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__5c69d2ca7095682a336d068c3150108567d2579cb49d6757cc294d5486dc87ed)
            check_type(argname="argument enabled", value=enabled, expected_type=type_hints["enabled"])
            check_type(argname="argument service_monitor", value=service_monitor, expected_type=type_hints["service_monitor"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if enabled is not None:
            self._values["enabled"] = enabled
        if service_monitor is not None:
            self._values["service_monitor"] = service_monitor

    @builtins.property
    def enabled(self) -> typing.Optional[builtins.bool]:
        '''Enabled controls if metrics will be configured.

        :schema: ControllerSpecMetrics#enabled
        '''
        result = self._values.get("enabled")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def service_monitor(self) -> typing.Optional["ControllerSpecMetricsServiceMonitor"]:
        '''ServiceMonitor defines a Prometheus service monitor to metrics discovery.

        :schema: ControllerSpecMetrics#serviceMonitor
        '''
        result = self._values.get("service_monitor")
        return typing.cast(typing.Optional["ControllerSpecMetricsServiceMonitor"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ControllerSpecMetrics(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.ControllerSpecMetricsServiceMonitor",
    jsii_struct_bases=[],
    name_mapping={
        "annotations": "annotations",
        "enabled": "enabled",
        "endpoints": "endpoints",
        "interval": "interval",
        "labels": "labels",
        "scrape_timeout": "scrapeTimeout",
    },
)
class ControllerSpecMetricsServiceMonitor:
    def __init__(
        self,
        *,
        annotations: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
        enabled: typing.Optional[builtins.bool] = None,
        endpoints: typing.Optional[typing.Sequence[typing.Union["ControllerSpecMetricsServiceMonitorEndpoints", typing.Dict[builtins.str, typing.Any]]]] = None,
        interval: typing.Optional[builtins.str] = None,
        labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
        scrape_timeout: typing.Optional[builtins.str] = None,
    ) -> None:
        '''ServiceMonitor defines a Prometheus service monitor to metrics discovery.

        :param annotations: Annotations is an unstructured key value map stored with a resource that may be set by external tools to store and retrieve arbitrary metadata. They are not queryable and should be preserved when modifying objects. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/annotations
        :param enabled: Enabled controls if metrics will be configured.
        :param endpoints: endpoints to scrape.
        :param interval: interval at which Prometheus scrapes the metrics from the target. If empty, Prometheus uses the global scrape interval.
        :param labels: Map of string keys and values that can be used to organize and categorize (scope and select) objects. May match selectors of replication controllers and services. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels
        :param scrape_timeout: scrapeTimeout defines the timeout after which Prometheus considers the scrape to be failed. If empty, Prometheus uses the global scrape timeout unless it is less than the target's scrape interval value in which the latter is used. The value cannot be greater than the scrape interval otherwise the operator will reject the resource.

        :schema: ControllerSpecMetricsServiceMonitor
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__6b6fae9f6e3a53c0592f3f3be0453e05463019578b26f4b2c26689db52c0808e)
            check_type(argname="argument annotations", value=annotations, expected_type=type_hints["annotations"])
            check_type(argname="argument enabled", value=enabled, expected_type=type_hints["enabled"])
            check_type(argname="argument endpoints", value=endpoints, expected_type=type_hints["endpoints"])
            check_type(argname="argument interval", value=interval, expected_type=type_hints["interval"])
            check_type(argname="argument labels", value=labels, expected_type=type_hints["labels"])
            check_type(argname="argument scrape_timeout", value=scrape_timeout, expected_type=type_hints["scrape_timeout"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if annotations is not None:
            self._values["annotations"] = annotations
        if enabled is not None:
            self._values["enabled"] = enabled
        if endpoints is not None:
            self._values["endpoints"] = endpoints
        if interval is not None:
            self._values["interval"] = interval
        if labels is not None:
            self._values["labels"] = labels
        if scrape_timeout is not None:
            self._values["scrape_timeout"] = scrape_timeout

    @builtins.property
    def annotations(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''Annotations is an unstructured key value map stored with a resource that may be set by external tools to store and retrieve arbitrary metadata.

        They are not
        queryable and should be preserved when modifying objects.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/annotations

        :schema: ControllerSpecMetricsServiceMonitor#annotations
        '''
        result = self._values.get("annotations")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    @builtins.property
    def enabled(self) -> typing.Optional[builtins.bool]:
        '''Enabled controls if metrics will be configured.

        :schema: ControllerSpecMetricsServiceMonitor#enabled
        '''
        result = self._values.get("enabled")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def endpoints(
        self,
    ) -> typing.Optional[typing.List["ControllerSpecMetricsServiceMonitorEndpoints"]]:
        '''endpoints to scrape.

        :schema: ControllerSpecMetricsServiceMonitor#endpoints
        '''
        result = self._values.get("endpoints")
        return typing.cast(typing.Optional[typing.List["ControllerSpecMetricsServiceMonitorEndpoints"]], result)

    @builtins.property
    def interval(self) -> typing.Optional[builtins.str]:
        '''interval at which Prometheus scrapes the metrics from the target.

        If empty, Prometheus uses the global scrape interval.

        :schema: ControllerSpecMetricsServiceMonitor#interval
        '''
        result = self._values.get("interval")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def labels(self) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''Map of string keys and values that can be used to organize and categorize (scope and select) objects.

        May match selectors of replication controllers
        and services.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels

        :schema: ControllerSpecMetricsServiceMonitor#labels
        '''
        result = self._values.get("labels")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    @builtins.property
    def scrape_timeout(self) -> typing.Optional[builtins.str]:
        '''scrapeTimeout defines the timeout after which Prometheus considers the scrape to be failed.

        If empty, Prometheus uses the global scrape timeout unless it is less
        than the target's scrape interval value in which the latter is used.
        The value cannot be greater than the scrape interval otherwise the operator will reject the resource.

        :schema: ControllerSpecMetricsServiceMonitor#scrapeTimeout
        '''
        result = self._values.get("scrape_timeout")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ControllerSpecMetricsServiceMonitor(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.ControllerSpecMetricsServiceMonitorEndpoints",
    jsii_struct_bases=[],
    name_mapping={
        "path": "path",
        "interval": "interval",
        "scrape_timeout": "scrapeTimeout",
    },
)
class ControllerSpecMetricsServiceMonitorEndpoints:
    def __init__(
        self,
        *,
        path: builtins.str,
        interval: typing.Optional[builtins.str] = None,
        scrape_timeout: typing.Optional[builtins.str] = None,
    ) -> None:
        '''
        :param path: path defines the HTTP path from which to scrape for metrics.
        :param interval: interval at which Prometheus scrapes the metrics from the target. If empty, the local global value will be used.
        :param scrape_timeout: scrapeTimeout defines the timeout after which Prometheus considers the scrape to be failed. If empty, the local global value will be used.

        :schema: ControllerSpecMetricsServiceMonitorEndpoints
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__6c4e0d1b5deca833443fc01edd8a35221de2946bce254a82031ac30534719259)
            check_type(argname="argument path", value=path, expected_type=type_hints["path"])
            check_type(argname="argument interval", value=interval, expected_type=type_hints["interval"])
            check_type(argname="argument scrape_timeout", value=scrape_timeout, expected_type=type_hints["scrape_timeout"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "path": path,
        }
        if interval is not None:
            self._values["interval"] = interval
        if scrape_timeout is not None:
            self._values["scrape_timeout"] = scrape_timeout

    @builtins.property
    def path(self) -> builtins.str:
        '''path defines the HTTP path from which to scrape for metrics.

        :schema: ControllerSpecMetricsServiceMonitorEndpoints#path
        '''
        result = self._values.get("path")
        assert result is not None, "Required property 'path' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def interval(self) -> typing.Optional[builtins.str]:
        '''interval at which Prometheus scrapes the metrics from the target.

        If empty, the local global value will be used.

        :schema: ControllerSpecMetricsServiceMonitorEndpoints#interval
        '''
        result = self._values.get("interval")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def scrape_timeout(self) -> typing.Optional[builtins.str]:
        '''scrapeTimeout defines the timeout after which Prometheus considers the scrape to be failed.

        If empty, the local global value will be used.

        :schema: ControllerSpecMetricsServiceMonitorEndpoints#scrapeTimeout
        '''
        result = self._values.get("scrape_timeout")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ControllerSpecMetricsServiceMonitorEndpoints(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.ControllerSpecPersistence",
    jsii_struct_bases=[],
    name_mapping={
        "enabled": "enabled",
        "access_modes": "accessModes",
        "data_source": "dataSource",
        "data_source_ref": "dataSourceRef",
        "existing_claim": "existingClaim",
        "resources": "resources",
        "selector": "selector",
        "storage_class_name": "storageClassName",
        "volume_attributes_class_name": "volumeAttributesClassName",
        "volume_mode": "volumeMode",
        "volume_name": "volumeName",
    },
)
class ControllerSpecPersistence:
    def __init__(
        self,
        *,
        enabled: builtins.bool,
        access_modes: typing.Optional[typing.Sequence[builtins.str]] = None,
        data_source: typing.Optional[typing.Union["ControllerSpecPersistenceDataSource", typing.Dict[builtins.str, typing.Any]]] = None,
        data_source_ref: typing.Optional[typing.Union["ControllerSpecPersistenceDataSourceRef", typing.Dict[builtins.str, typing.Any]]] = None,
        existing_claim: typing.Optional[builtins.str] = None,
        resources: typing.Optional[typing.Union["ControllerSpecPersistenceResources", typing.Dict[builtins.str, typing.Any]]] = None,
        selector: typing.Optional[typing.Union["ControllerSpecPersistenceSelector", typing.Dict[builtins.str, typing.Any]]] = None,
        storage_class_name: typing.Optional[builtins.str] = None,
        volume_attributes_class_name: typing.Optional[builtins.str] = None,
        volume_mode: typing.Optional[builtins.str] = None,
        volume_name: typing.Optional[builtins.str] = None,
    ) -> None:
        '''Persistence defines a persistent volume for the slurm controller to store its save-state.

        Used to recover from system failures or from pod upgrades.

        :param enabled: Enabled controls if the optional accounting subsystem is enabled.
        :param access_modes: accessModes contains the desired access modes the volume should have. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes-1
        :param data_source: dataSource field can be used to specify either: * An existing VolumeSnapshot object (snapshot.storage.k8s.io/VolumeSnapshot) * An existing PVC (PersistentVolumeClaim) If the provisioner or an external controller can support the specified data source, it will create a new volume based on the contents of the specified data source. When the AnyVolumeDataSource feature gate is enabled, dataSource contents will be copied to dataSourceRef, and dataSourceRef contents will be copied to dataSource when dataSourceRef.namespace is not specified. If the namespace is specified, then dataSourceRef will not be copied to dataSource.
        :param data_source_ref: dataSourceRef specifies the object from which to populate the volume with data, if a non-empty volume is desired. This may be any object from a non-empty API group (non core object) or a PersistentVolumeClaim object. When this field is specified, volume binding will only succeed if the type of the specified object matches some installed volume populator or dynamic provisioner. This field will replace the functionality of the dataSource field and as such if both fields are non-empty, they must have the same value. For backwards compatibility, when namespace isn't specified in dataSourceRef, both fields (dataSource and dataSourceRef) will be set to the same value automatically if one of them is empty and the other is non-empty. When namespace is specified in dataSourceRef, dataSource isn't set to the same value and must be empty. There are three important differences between dataSource and dataSourceRef: - While dataSource only allows two specific types of objects, dataSourceRef allows any non-core object, as well as PersistentVolumeClaim objects. - While dataSource ignores disallowed values (dropping them), dataSourceRef preserves all values, and generates an error if a disallowed value is specified. - While dataSource only allows local objects, dataSourceRef allows objects in any namespaces. (Beta) Using this field requires the AnyVolumeDataSource feature gate to be enabled. (Alpha) Using the namespace field of dataSourceRef requires the CrossNamespaceVolumeDataSource feature gate to be enabled.
        :param existing_claim: ExistingClaim is the name of an existing ``PersistentVolumeClaim`` to use instead. If this is not empty, then certain other fields will be ignored.
        :param resources: resources represents the minimum resources the volume should have. Users are allowed to specify resource requirements that are lower than previous value but must still be higher than capacity recorded in the status field of the claim. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#resources
        :param selector: selector is a label query over volumes to consider for binding.
        :param storage_class_name: storageClassName is the name of the StorageClass required by the claim. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#class-1
        :param volume_attributes_class_name: volumeAttributesClassName may be used to set the VolumeAttributesClass used by this claim. If specified, the CSI driver will create or update the volume with the attributes defined in the corresponding VolumeAttributesClass. This has a different purpose than storageClassName, it can be changed after the claim is created. An empty string or nil value indicates that no VolumeAttributesClass will be applied to the claim. If the claim enters an Infeasible error state, this field can be reset to its previous value (including nil) to cancel the modification. If the resource referred to by volumeAttributesClass does not exist, this PersistentVolumeClaim will be set to a Pending state, as reflected by the modifyVolumeStatus field, until such as a resource exists. More info: https://kubernetes.io/docs/concepts/storage/volume-attributes-classes/
        :param volume_mode: volumeMode defines what type of volume is required by the claim. Value of Filesystem is implied when not included in claim spec.
        :param volume_name: volumeName is the binding reference to the PersistentVolume backing this claim.

        :schema: ControllerSpecPersistence
        '''
        if isinstance(data_source, dict):
            data_source = ControllerSpecPersistenceDataSource(**data_source)
        if isinstance(data_source_ref, dict):
            data_source_ref = ControllerSpecPersistenceDataSourceRef(**data_source_ref)
        if isinstance(resources, dict):
            resources = ControllerSpecPersistenceResources(**resources)
        if isinstance(selector, dict):
            selector = ControllerSpecPersistenceSelector(**selector)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__6a560eb04cfc563a780a645cb26210160adfd4754da58503405778c37cc66e83)
            check_type(argname="argument enabled", value=enabled, expected_type=type_hints["enabled"])
            check_type(argname="argument access_modes", value=access_modes, expected_type=type_hints["access_modes"])
            check_type(argname="argument data_source", value=data_source, expected_type=type_hints["data_source"])
            check_type(argname="argument data_source_ref", value=data_source_ref, expected_type=type_hints["data_source_ref"])
            check_type(argname="argument existing_claim", value=existing_claim, expected_type=type_hints["existing_claim"])
            check_type(argname="argument resources", value=resources, expected_type=type_hints["resources"])
            check_type(argname="argument selector", value=selector, expected_type=type_hints["selector"])
            check_type(argname="argument storage_class_name", value=storage_class_name, expected_type=type_hints["storage_class_name"])
            check_type(argname="argument volume_attributes_class_name", value=volume_attributes_class_name, expected_type=type_hints["volume_attributes_class_name"])
            check_type(argname="argument volume_mode", value=volume_mode, expected_type=type_hints["volume_mode"])
            check_type(argname="argument volume_name", value=volume_name, expected_type=type_hints["volume_name"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "enabled": enabled,
        }
        if access_modes is not None:
            self._values["access_modes"] = access_modes
        if data_source is not None:
            self._values["data_source"] = data_source
        if data_source_ref is not None:
            self._values["data_source_ref"] = data_source_ref
        if existing_claim is not None:
            self._values["existing_claim"] = existing_claim
        if resources is not None:
            self._values["resources"] = resources
        if selector is not None:
            self._values["selector"] = selector
        if storage_class_name is not None:
            self._values["storage_class_name"] = storage_class_name
        if volume_attributes_class_name is not None:
            self._values["volume_attributes_class_name"] = volume_attributes_class_name
        if volume_mode is not None:
            self._values["volume_mode"] = volume_mode
        if volume_name is not None:
            self._values["volume_name"] = volume_name

    @builtins.property
    def enabled(self) -> builtins.bool:
        '''Enabled controls if the optional accounting subsystem is enabled.

        :schema: ControllerSpecPersistence#enabled
        '''
        result = self._values.get("enabled")
        assert result is not None, "Required property 'enabled' is missing"
        return typing.cast(builtins.bool, result)

    @builtins.property
    def access_modes(self) -> typing.Optional[typing.List[builtins.str]]:
        '''accessModes contains the desired access modes the volume should have.

        More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes-1

        :schema: ControllerSpecPersistence#accessModes
        '''
        result = self._values.get("access_modes")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    @builtins.property
    def data_source(self) -> typing.Optional["ControllerSpecPersistenceDataSource"]:
        '''dataSource field can be used to specify either: * An existing VolumeSnapshot object (snapshot.storage.k8s.io/VolumeSnapshot) * An existing PVC (PersistentVolumeClaim) If the provisioner or an external controller can support the specified data source, it will create a new volume based on the contents of the specified data source. When the AnyVolumeDataSource feature gate is enabled, dataSource contents will be copied to dataSourceRef, and dataSourceRef contents will be copied to dataSource when dataSourceRef.namespace is not specified. If the namespace is specified, then dataSourceRef will not be copied to dataSource.

        :schema: ControllerSpecPersistence#dataSource
        '''
        result = self._values.get("data_source")
        return typing.cast(typing.Optional["ControllerSpecPersistenceDataSource"], result)

    @builtins.property
    def data_source_ref(
        self,
    ) -> typing.Optional["ControllerSpecPersistenceDataSourceRef"]:
        '''dataSourceRef specifies the object from which to populate the volume with data, if a non-empty volume is desired.

        This may be any object from a non-empty API group (non
        core object) or a PersistentVolumeClaim object.
        When this field is specified, volume binding will only succeed if the type of
        the specified object matches some installed volume populator or dynamic
        provisioner.
        This field will replace the functionality of the dataSource field and as such
        if both fields are non-empty, they must have the same value. For backwards
        compatibility, when namespace isn't specified in dataSourceRef,
        both fields (dataSource and dataSourceRef) will be set to the same
        value automatically if one of them is empty and the other is non-empty.
        When namespace is specified in dataSourceRef,
        dataSource isn't set to the same value and must be empty.
        There are three important differences between dataSource and dataSourceRef:

        - While dataSource only allows two specific types of objects, dataSourceRef
          allows any non-core object, as well as PersistentVolumeClaim objects.
        - While dataSource ignores disallowed values (dropping them), dataSourceRef
          preserves all values, and generates an error if a disallowed value is
          specified.
        - While dataSource only allows local objects, dataSourceRef allows objects
          in any namespaces.
          (Beta) Using this field requires the AnyVolumeDataSource feature gate to be enabled.
          (Alpha) Using the namespace field of dataSourceRef requires the CrossNamespaceVolumeDataSource feature gate to be enabled.

        :schema: ControllerSpecPersistence#dataSourceRef
        '''
        result = self._values.get("data_source_ref")
        return typing.cast(typing.Optional["ControllerSpecPersistenceDataSourceRef"], result)

    @builtins.property
    def existing_claim(self) -> typing.Optional[builtins.str]:
        '''ExistingClaim is the name of an existing ``PersistentVolumeClaim`` to use instead.

        If this is not empty, then certain other fields will be ignored.

        :schema: ControllerSpecPersistence#existingClaim
        '''
        result = self._values.get("existing_claim")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def resources(self) -> typing.Optional["ControllerSpecPersistenceResources"]:
        '''resources represents the minimum resources the volume should have.

        Users are allowed to specify resource requirements
        that are lower than previous value but must still be higher than capacity recorded in the
        status field of the claim.
        More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#resources

        :schema: ControllerSpecPersistence#resources
        '''
        result = self._values.get("resources")
        return typing.cast(typing.Optional["ControllerSpecPersistenceResources"], result)

    @builtins.property
    def selector(self) -> typing.Optional["ControllerSpecPersistenceSelector"]:
        '''selector is a label query over volumes to consider for binding.

        :schema: ControllerSpecPersistence#selector
        '''
        result = self._values.get("selector")
        return typing.cast(typing.Optional["ControllerSpecPersistenceSelector"], result)

    @builtins.property
    def storage_class_name(self) -> typing.Optional[builtins.str]:
        '''storageClassName is the name of the StorageClass required by the claim.

        More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#class-1

        :schema: ControllerSpecPersistence#storageClassName
        '''
        result = self._values.get("storage_class_name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def volume_attributes_class_name(self) -> typing.Optional[builtins.str]:
        '''volumeAttributesClassName may be used to set the VolumeAttributesClass used by this claim.

        If specified, the CSI driver will create or update the volume with the attributes defined
        in the corresponding VolumeAttributesClass. This has a different purpose than storageClassName,
        it can be changed after the claim is created. An empty string or nil value indicates that no
        VolumeAttributesClass will be applied to the claim. If the claim enters an Infeasible error state,
        this field can be reset to its previous value (including nil) to cancel the modification.
        If the resource referred to by volumeAttributesClass does not exist, this PersistentVolumeClaim will be
        set to a Pending state, as reflected by the modifyVolumeStatus field, until such as a resource
        exists.
        More info: https://kubernetes.io/docs/concepts/storage/volume-attributes-classes/

        :schema: ControllerSpecPersistence#volumeAttributesClassName
        '''
        result = self._values.get("volume_attributes_class_name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def volume_mode(self) -> typing.Optional[builtins.str]:
        '''volumeMode defines what type of volume is required by the claim.

        Value of Filesystem is implied when not included in claim spec.

        :schema: ControllerSpecPersistence#volumeMode
        '''
        result = self._values.get("volume_mode")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def volume_name(self) -> typing.Optional[builtins.str]:
        '''volumeName is the binding reference to the PersistentVolume backing this claim.

        :schema: ControllerSpecPersistence#volumeName
        '''
        result = self._values.get("volume_name")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ControllerSpecPersistence(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.ControllerSpecPersistenceDataSource",
    jsii_struct_bases=[],
    name_mapping={"kind": "kind", "name": "name", "api_group": "apiGroup"},
)
class ControllerSpecPersistenceDataSource:
    def __init__(
        self,
        *,
        kind: builtins.str,
        name: builtins.str,
        api_group: typing.Optional[builtins.str] = None,
    ) -> None:
        '''dataSource field can be used to specify either: * An existing VolumeSnapshot object (snapshot.storage.k8s.io/VolumeSnapshot) * An existing PVC (PersistentVolumeClaim) If the provisioner or an external controller can support the specified data source, it will create a new volume based on the contents of the specified data source. When the AnyVolumeDataSource feature gate is enabled, dataSource contents will be copied to dataSourceRef, and dataSourceRef contents will be copied to dataSource when dataSourceRef.namespace is not specified. If the namespace is specified, then dataSourceRef will not be copied to dataSource.

        :param kind: Kind is the type of resource being referenced.
        :param name: Name is the name of resource being referenced.
        :param api_group: APIGroup is the group for the resource being referenced. If APIGroup is not specified, the specified Kind must be in the core API group. For any other third-party types, APIGroup is required.

        :schema: ControllerSpecPersistenceDataSource
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__08919c98a250fce56ea41fa252cc6843bf6c0bc78010fcdd08082f1a1224f86e)
            check_type(argname="argument kind", value=kind, expected_type=type_hints["kind"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument api_group", value=api_group, expected_type=type_hints["api_group"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "kind": kind,
            "name": name,
        }
        if api_group is not None:
            self._values["api_group"] = api_group

    @builtins.property
    def kind(self) -> builtins.str:
        '''Kind is the type of resource being referenced.

        :schema: ControllerSpecPersistenceDataSource#kind
        '''
        result = self._values.get("kind")
        assert result is not None, "Required property 'kind' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> builtins.str:
        '''Name is the name of resource being referenced.

        :schema: ControllerSpecPersistenceDataSource#name
        '''
        result = self._values.get("name")
        assert result is not None, "Required property 'name' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def api_group(self) -> typing.Optional[builtins.str]:
        '''APIGroup is the group for the resource being referenced.

        If APIGroup is not specified, the specified Kind must be in the core API group.
        For any other third-party types, APIGroup is required.

        :schema: ControllerSpecPersistenceDataSource#apiGroup
        '''
        result = self._values.get("api_group")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ControllerSpecPersistenceDataSource(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.ControllerSpecPersistenceDataSourceRef",
    jsii_struct_bases=[],
    name_mapping={
        "kind": "kind",
        "name": "name",
        "api_group": "apiGroup",
        "namespace": "namespace",
    },
)
class ControllerSpecPersistenceDataSourceRef:
    def __init__(
        self,
        *,
        kind: builtins.str,
        name: builtins.str,
        api_group: typing.Optional[builtins.str] = None,
        namespace: typing.Optional[builtins.str] = None,
    ) -> None:
        '''dataSourceRef specifies the object from which to populate the volume with data, if a non-empty volume is desired.

        This may be any object from a non-empty API group (non
        core object) or a PersistentVolumeClaim object.
        When this field is specified, volume binding will only succeed if the type of
        the specified object matches some installed volume populator or dynamic
        provisioner.
        This field will replace the functionality of the dataSource field and as such
        if both fields are non-empty, they must have the same value. For backwards
        compatibility, when namespace isn't specified in dataSourceRef,
        both fields (dataSource and dataSourceRef) will be set to the same
        value automatically if one of them is empty and the other is non-empty.
        When namespace is specified in dataSourceRef,
        dataSource isn't set to the same value and must be empty.
        There are three important differences between dataSource and dataSourceRef:

        - While dataSource only allows two specific types of objects, dataSourceRef
          allows any non-core object, as well as PersistentVolumeClaim objects.
        - While dataSource ignores disallowed values (dropping them), dataSourceRef
          preserves all values, and generates an error if a disallowed value is
          specified.
        - While dataSource only allows local objects, dataSourceRef allows objects
          in any namespaces.
          (Beta) Using this field requires the AnyVolumeDataSource feature gate to be enabled.
          (Alpha) Using the namespace field of dataSourceRef requires the CrossNamespaceVolumeDataSource feature gate to be enabled.

        :param kind: Kind is the type of resource being referenced.
        :param name: Name is the name of resource being referenced.
        :param api_group: APIGroup is the group for the resource being referenced. If APIGroup is not specified, the specified Kind must be in the core API group. For any other third-party types, APIGroup is required.
        :param namespace: Namespace is the namespace of resource being referenced Note that when a namespace is specified, a gateway.networking.k8s.io/ReferenceGrant object is required in the referent namespace to allow that namespace's owner to accept the reference. See the ReferenceGrant documentation for details. (Alpha) This field requires the CrossNamespaceVolumeDataSource feature gate to be enabled.

        :schema: ControllerSpecPersistenceDataSourceRef
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__cc2e84c29e9ac392a07445195fb5d4a242ded32f8e9c31dcc61848898cd1a9f3)
            check_type(argname="argument kind", value=kind, expected_type=type_hints["kind"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument api_group", value=api_group, expected_type=type_hints["api_group"])
            check_type(argname="argument namespace", value=namespace, expected_type=type_hints["namespace"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "kind": kind,
            "name": name,
        }
        if api_group is not None:
            self._values["api_group"] = api_group
        if namespace is not None:
            self._values["namespace"] = namespace

    @builtins.property
    def kind(self) -> builtins.str:
        '''Kind is the type of resource being referenced.

        :schema: ControllerSpecPersistenceDataSourceRef#kind
        '''
        result = self._values.get("kind")
        assert result is not None, "Required property 'kind' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> builtins.str:
        '''Name is the name of resource being referenced.

        :schema: ControllerSpecPersistenceDataSourceRef#name
        '''
        result = self._values.get("name")
        assert result is not None, "Required property 'name' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def api_group(self) -> typing.Optional[builtins.str]:
        '''APIGroup is the group for the resource being referenced.

        If APIGroup is not specified, the specified Kind must be in the core API group.
        For any other third-party types, APIGroup is required.

        :schema: ControllerSpecPersistenceDataSourceRef#apiGroup
        '''
        result = self._values.get("api_group")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def namespace(self) -> typing.Optional[builtins.str]:
        '''Namespace is the namespace of resource being referenced Note that when a namespace is specified, a gateway.networking.k8s.io/ReferenceGrant object is required in the referent namespace to allow that namespace's owner to accept the reference. See the ReferenceGrant documentation for details. (Alpha) This field requires the CrossNamespaceVolumeDataSource feature gate to be enabled.

        :schema: ControllerSpecPersistenceDataSourceRef#namespace
        '''
        result = self._values.get("namespace")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ControllerSpecPersistenceDataSourceRef(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.ControllerSpecPersistenceResources",
    jsii_struct_bases=[],
    name_mapping={"limits": "limits", "requests": "requests"},
)
class ControllerSpecPersistenceResources:
    def __init__(
        self,
        *,
        limits: typing.Optional[typing.Mapping[builtins.str, "ControllerSpecPersistenceResourcesLimits"]] = None,
        requests: typing.Optional[typing.Mapping[builtins.str, "ControllerSpecPersistenceResourcesRequests"]] = None,
    ) -> None:
        '''resources represents the minimum resources the volume should have.

        Users are allowed to specify resource requirements
        that are lower than previous value but must still be higher than capacity recorded in the
        status field of the claim.
        More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#resources

        :param limits: Limits describes the maximum amount of compute resources allowed. More info: https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/
        :param requests: Requests describes the minimum amount of compute resources required. If Requests is omitted for a container, it defaults to Limits if that is explicitly specified, otherwise to an implementation-defined value. Requests cannot exceed Limits. More info: https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/

        :schema: ControllerSpecPersistenceResources
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__24d9111caa5ea955865c044538b35f9f3a38cb6fd385f4101232bfd2bc98bb25)
            check_type(argname="argument limits", value=limits, expected_type=type_hints["limits"])
            check_type(argname="argument requests", value=requests, expected_type=type_hints["requests"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if limits is not None:
            self._values["limits"] = limits
        if requests is not None:
            self._values["requests"] = requests

    @builtins.property
    def limits(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, "ControllerSpecPersistenceResourcesLimits"]]:
        '''Limits describes the maximum amount of compute resources allowed.

        More info: https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/

        :schema: ControllerSpecPersistenceResources#limits
        '''
        result = self._values.get("limits")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, "ControllerSpecPersistenceResourcesLimits"]], result)

    @builtins.property
    def requests(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, "ControllerSpecPersistenceResourcesRequests"]]:
        '''Requests describes the minimum amount of compute resources required.

        If Requests is omitted for a container, it defaults to Limits if that is explicitly specified,
        otherwise to an implementation-defined value. Requests cannot exceed Limits.
        More info: https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/

        :schema: ControllerSpecPersistenceResources#requests
        '''
        result = self._values.get("requests")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, "ControllerSpecPersistenceResourcesRequests"]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ControllerSpecPersistenceResources(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class ControllerSpecPersistenceResourcesLimits(
    metaclass=jsii.JSIIMeta,
    jsii_type="netslurmslinky.ControllerSpecPersistenceResourcesLimits",
):
    '''
    :schema: ControllerSpecPersistenceResourcesLimits
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(
        cls,
        value: jsii.Number,
    ) -> "ControllerSpecPersistenceResourcesLimits":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__c88c89eef4e7335e44650ca8c72e1cbfb82f72e2ed947f1ff29f9592fe0534e1)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ControllerSpecPersistenceResourcesLimits", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(
        cls,
        value: builtins.str,
    ) -> "ControllerSpecPersistenceResourcesLimits":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__9d8acab59bcba5b74ee23a0fe9e4d61ebd1e27e6adab4f9963dd72affc1b1755)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ControllerSpecPersistenceResourcesLimits", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


class ControllerSpecPersistenceResourcesRequests(
    metaclass=jsii.JSIIMeta,
    jsii_type="netslurmslinky.ControllerSpecPersistenceResourcesRequests",
):
    '''
    :schema: ControllerSpecPersistenceResourcesRequests
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(
        cls,
        value: jsii.Number,
    ) -> "ControllerSpecPersistenceResourcesRequests":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__bf80c6f9cfef21b2d380f2ee2fd808e7a8145160232b9885748ccf90a6274959)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ControllerSpecPersistenceResourcesRequests", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(
        cls,
        value: builtins.str,
    ) -> "ControllerSpecPersistenceResourcesRequests":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__bee52f9f0bd828359bd6da5b940a8284a58840a05481a5851d21cbc4b5405247)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ControllerSpecPersistenceResourcesRequests", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


@jsii.data_type(
    jsii_type="netslurmslinky.ControllerSpecPersistenceSelector",
    jsii_struct_bases=[],
    name_mapping={
        "match_expressions": "matchExpressions",
        "match_labels": "matchLabels",
    },
)
class ControllerSpecPersistenceSelector:
    def __init__(
        self,
        *,
        match_expressions: typing.Optional[typing.Sequence[typing.Union["ControllerSpecPersistenceSelectorMatchExpressions", typing.Dict[builtins.str, typing.Any]]]] = None,
        match_labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    ) -> None:
        '''selector is a label query over volumes to consider for binding.

        :param match_expressions: matchExpressions is a list of label selector requirements. The requirements are ANDed.
        :param match_labels: matchLabels is a map of {key,value} pairs. A single {key,value} in the matchLabels map is equivalent to an element of matchExpressions, whose key field is "key", the operator is "In", and the values array contains only "value". The requirements are ANDed.

        :schema: ControllerSpecPersistenceSelector
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__934868725e22129773e41593618b3d05f33d96de9e63b65c86e2619380340c3d)
            check_type(argname="argument match_expressions", value=match_expressions, expected_type=type_hints["match_expressions"])
            check_type(argname="argument match_labels", value=match_labels, expected_type=type_hints["match_labels"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if match_expressions is not None:
            self._values["match_expressions"] = match_expressions
        if match_labels is not None:
            self._values["match_labels"] = match_labels

    @builtins.property
    def match_expressions(
        self,
    ) -> typing.Optional[typing.List["ControllerSpecPersistenceSelectorMatchExpressions"]]:
        '''matchExpressions is a list of label selector requirements.

        The requirements are ANDed.

        :schema: ControllerSpecPersistenceSelector#matchExpressions
        '''
        result = self._values.get("match_expressions")
        return typing.cast(typing.Optional[typing.List["ControllerSpecPersistenceSelectorMatchExpressions"]], result)

    @builtins.property
    def match_labels(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''matchLabels is a map of {key,value} pairs.

        A single {key,value} in the matchLabels
        map is equivalent to an element of matchExpressions, whose key field is "key", the
        operator is "In", and the values array contains only "value". The requirements are ANDed.

        :schema: ControllerSpecPersistenceSelector#matchLabels
        '''
        result = self._values.get("match_labels")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ControllerSpecPersistenceSelector(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.ControllerSpecPersistenceSelectorMatchExpressions",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "operator": "operator", "values": "values"},
)
class ControllerSpecPersistenceSelectorMatchExpressions:
    def __init__(
        self,
        *,
        key: builtins.str,
        operator: builtins.str,
        values: typing.Optional[typing.Sequence[builtins.str]] = None,
    ) -> None:
        '''A label selector requirement is a selector that contains values, a key, and an operator that relates the key and values.

        :param key: key is the label key that the selector applies to.
        :param operator: operator represents a key's relationship to a set of values. Valid operators are In, NotIn, Exists and DoesNotExist.
        :param values: values is an array of string values. If the operator is In or NotIn, the values array must be non-empty. If the operator is Exists or DoesNotExist, the values array must be empty. This array is replaced during a strategic merge patch.

        :schema: ControllerSpecPersistenceSelectorMatchExpressions
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__2082c4ed272aaf4e344b7f1a23c484e308f7af94690b61e97d84ae15ca32bc6b)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument operator", value=operator, expected_type=type_hints["operator"])
            check_type(argname="argument values", value=values, expected_type=type_hints["values"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
            "operator": operator,
        }
        if values is not None:
            self._values["values"] = values

    @builtins.property
    def key(self) -> builtins.str:
        '''key is the label key that the selector applies to.

        :schema: ControllerSpecPersistenceSelectorMatchExpressions#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def operator(self) -> builtins.str:
        '''operator represents a key's relationship to a set of values.

        Valid operators are In, NotIn, Exists and DoesNotExist.

        :schema: ControllerSpecPersistenceSelectorMatchExpressions#operator
        '''
        result = self._values.get("operator")
        assert result is not None, "Required property 'operator' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def values(self) -> typing.Optional[typing.List[builtins.str]]:
        '''values is an array of string values.

        If the operator is In or NotIn,
        the values array must be non-empty. If the operator is Exists or DoesNotExist,
        the values array must be empty. This array is replaced during a strategic
        merge patch.

        :schema: ControllerSpecPersistenceSelectorMatchExpressions#values
        '''
        result = self._values.get("values")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ControllerSpecPersistenceSelectorMatchExpressions(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.ControllerSpecPrologScriptRefs",
    jsii_struct_bases=[],
    name_mapping={"name": "name"},
)
class ControllerSpecPrologScriptRefs:
    def __init__(self, *, name: typing.Optional[builtins.str] = None) -> None:
        '''LocalObjectReference contains enough information to let you locate the referenced object inside the same namespace.

        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ControllerSpecPrologScriptRefs
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__3861bc570d68f74720d53e3d369868693c18f643c80fa3dab71342297bf77402)
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if name is not None:
            self._values["name"] = name

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ControllerSpecPrologScriptRefs#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ControllerSpecPrologScriptRefs(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.ControllerSpecPrologSlurmctldScriptRefs",
    jsii_struct_bases=[],
    name_mapping={"name": "name"},
)
class ControllerSpecPrologSlurmctldScriptRefs:
    def __init__(self, *, name: typing.Optional[builtins.str] = None) -> None:
        '''LocalObjectReference contains enough information to let you locate the referenced object inside the same namespace.

        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ControllerSpecPrologSlurmctldScriptRefs
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__c256dbf940a4edd4aae360843adbc0f82c00bcd17222a395c8286ffbffd8e440)
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if name is not None:
            self._values["name"] = name

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ControllerSpecPrologSlurmctldScriptRefs#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ControllerSpecPrologSlurmctldScriptRefs(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.ControllerSpecService",
    jsii_struct_bases=[],
    name_mapping={
        "metadata": "metadata",
        "node_port": "nodePort",
        "port": "port",
        "spec": "spec",
    },
)
class ControllerSpecService:
    def __init__(
        self,
        *,
        metadata: typing.Optional[typing.Union["ControllerSpecServiceMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        node_port: typing.Optional[jsii.Number] = None,
        port: typing.Optional[jsii.Number] = None,
        spec: typing.Any = None,
    ) -> None:
        '''Service defines a template for a Kubernetes Service object.

        :param metadata: Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
        :param node_port: The port on each node on which this service is exposed when type is NodePort or LoadBalancer. Usually assigned by the system. If a value is specified, in-range, and not in use it will be used, otherwise the operation will fail. If not specified, a port will be allocated if this Service requires one. If this field is specified when creating a Service which does not need it, creation will fail.
        :param port: The external service port number.
        :param spec: ServiceSpec describes the attributes that a user creates on a service.

        :schema: ControllerSpecService
        '''
        if isinstance(metadata, dict):
            metadata = ControllerSpecServiceMetadata(**metadata)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__5f01c0f495517f6c260a79c0e8f219e74aad26ed952cfef0931d17e1598f59ab)
            check_type(argname="argument metadata", value=metadata, expected_type=type_hints["metadata"])
            check_type(argname="argument node_port", value=node_port, expected_type=type_hints["node_port"])
            check_type(argname="argument port", value=port, expected_type=type_hints["port"])
            check_type(argname="argument spec", value=spec, expected_type=type_hints["spec"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if metadata is not None:
            self._values["metadata"] = metadata
        if node_port is not None:
            self._values["node_port"] = node_port
        if port is not None:
            self._values["port"] = port
        if spec is not None:
            self._values["spec"] = spec

    @builtins.property
    def metadata(self) -> typing.Optional["ControllerSpecServiceMetadata"]:
        '''Standard object's metadata.

        More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata

        :schema: ControllerSpecService#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["ControllerSpecServiceMetadata"], result)

    @builtins.property
    def node_port(self) -> typing.Optional[jsii.Number]:
        '''The port on each node on which this service is exposed when type is NodePort or LoadBalancer.

        Usually assigned by the system. If a value is
        specified, in-range, and not in use it will be used, otherwise the
        operation will fail.  If not specified, a port will be allocated if this
        Service requires one.  If this field is specified when creating a
        Service which does not need it, creation will fail.

        :schema: ControllerSpecService#nodePort
        '''
        result = self._values.get("node_port")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def port(self) -> typing.Optional[jsii.Number]:
        '''The external service port number.

        :schema: ControllerSpecService#port
        '''
        result = self._values.get("port")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def spec(self) -> typing.Any:
        '''ServiceSpec describes the attributes that a user creates on a service.

        :schema: ControllerSpecService#spec
        '''
        result = self._values.get("spec")
        return typing.cast(typing.Any, result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ControllerSpecService(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.ControllerSpecServiceMetadata",
    jsii_struct_bases=[],
    name_mapping={"annotations": "annotations", "labels": "labels"},
)
class ControllerSpecServiceMetadata:
    def __init__(
        self,
        *,
        annotations: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
        labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    ) -> None:
        '''Standard object's metadata.

        More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata

        :param annotations: Annotations is an unstructured key value map stored with a resource that may be set by external tools to store and retrieve arbitrary metadata. They are not queryable and should be preserved when modifying objects. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/annotations
        :param labels: Map of string keys and values that can be used to organize and categorize (scope and select) objects. May match selectors of replication controllers and services. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels

        :schema: ControllerSpecServiceMetadata
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__10177c85f3396d440d8472f1a4e58ec4762bd82038e16a7f147879fb027e889e)
            check_type(argname="argument annotations", value=annotations, expected_type=type_hints["annotations"])
            check_type(argname="argument labels", value=labels, expected_type=type_hints["labels"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if annotations is not None:
            self._values["annotations"] = annotations
        if labels is not None:
            self._values["labels"] = labels

    @builtins.property
    def annotations(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''Annotations is an unstructured key value map stored with a resource that may be set by external tools to store and retrieve arbitrary metadata.

        They are not
        queryable and should be preserved when modifying objects.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/annotations

        :schema: ControllerSpecServiceMetadata#annotations
        '''
        result = self._values.get("annotations")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    @builtins.property
    def labels(self) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''Map of string keys and values that can be used to organize and categorize (scope and select) objects.

        May match selectors of replication controllers
        and services.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels

        :schema: ControllerSpecServiceMetadata#labels
        '''
        result = self._values.get("labels")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ControllerSpecServiceMetadata(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.ControllerSpecSlurmKeyRef",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class ControllerSpecSlurmKeyRef:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''Slurm ``auth/slurm`` key authentication.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: ControllerSpecSlurmKeyRef
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__bf2e6e78253f3f33f704c6d33d2af60242479b33d061950e120f22c2a62fb980)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: ControllerSpecSlurmKeyRef#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ControllerSpecSlurmKeyRef#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: ControllerSpecSlurmKeyRef#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ControllerSpecSlurmKeyRef(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.ControllerSpecTemplate",
    jsii_struct_bases=[],
    name_mapping={"metadata": "metadata", "spec": "spec"},
)
class ControllerSpecTemplate:
    def __init__(
        self,
        *,
        metadata: typing.Optional[typing.Union["ControllerSpecTemplateMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Any = None,
    ) -> None:
        '''Template is the object that describes the pod that will be created if insufficient replicas are detected.

        More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#pod-template

        :param metadata: Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
        :param spec: PodSpec is a description of a pod.

        :schema: ControllerSpecTemplate
        '''
        if isinstance(metadata, dict):
            metadata = ControllerSpecTemplateMetadata(**metadata)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__49649db5b2965c51eb88b598b7f619178fe3a95e209c1674c078f93d90c408fa)
            check_type(argname="argument metadata", value=metadata, expected_type=type_hints["metadata"])
            check_type(argname="argument spec", value=spec, expected_type=type_hints["spec"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if metadata is not None:
            self._values["metadata"] = metadata
        if spec is not None:
            self._values["spec"] = spec

    @builtins.property
    def metadata(self) -> typing.Optional["ControllerSpecTemplateMetadata"]:
        '''Standard object's metadata.

        More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata

        :schema: ControllerSpecTemplate#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["ControllerSpecTemplateMetadata"], result)

    @builtins.property
    def spec(self) -> typing.Any:
        '''PodSpec is a description of a pod.

        :schema: ControllerSpecTemplate#spec
        '''
        result = self._values.get("spec")
        return typing.cast(typing.Any, result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ControllerSpecTemplate(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.ControllerSpecTemplateMetadata",
    jsii_struct_bases=[],
    name_mapping={"annotations": "annotations", "labels": "labels"},
)
class ControllerSpecTemplateMetadata:
    def __init__(
        self,
        *,
        annotations: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
        labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    ) -> None:
        '''Standard object's metadata.

        More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata

        :param annotations: Annotations is an unstructured key value map stored with a resource that may be set by external tools to store and retrieve arbitrary metadata. They are not queryable and should be preserved when modifying objects. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/annotations
        :param labels: Map of string keys and values that can be used to organize and categorize (scope and select) objects. May match selectors of replication controllers and services. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels

        :schema: ControllerSpecTemplateMetadata
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__5ee105fdd61f6f93ba7843e3d3fa0440ca129adeeb08825834acd43b0d058466)
            check_type(argname="argument annotations", value=annotations, expected_type=type_hints["annotations"])
            check_type(argname="argument labels", value=labels, expected_type=type_hints["labels"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if annotations is not None:
            self._values["annotations"] = annotations
        if labels is not None:
            self._values["labels"] = labels

    @builtins.property
    def annotations(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''Annotations is an unstructured key value map stored with a resource that may be set by external tools to store and retrieve arbitrary metadata.

        They are not
        queryable and should be preserved when modifying objects.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/annotations

        :schema: ControllerSpecTemplateMetadata#annotations
        '''
        result = self._values.get("annotations")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    @builtins.property
    def labels(self) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''Map of string keys and values that can be used to organize and categorize (scope and select) objects.

        May match selectors of replication controllers
        and services.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels

        :schema: ControllerSpecTemplateMetadata#labels
        '''
        result = self._values.get("labels")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ControllerSpecTemplateMetadata(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class LoginSet(
    _cdk8s_d3d9af27.ApiObject,
    metaclass=jsii.JSIIMeta,
    jsii_type="netslurmslinky.LoginSet",
):
    '''LoginSet is the Schema for the loginsets API.

    :schema: LoginSet
    '''

    def __init__(
        self,
        scope: "_constructs_77d1e7e8.Construct",
        id: builtins.str,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["LoginSetSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Defines a "LoginSet" API object.

        :param scope: the scope in which to define this object.
        :param id: a scope-local name for the object.
        :param metadata: 
        :param spec: LoginSetSpec defines the desired state of LoginSet.
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__495059da0b5e521748af0d56f8d365ec9d23f9c08c8296cc8adda213c58de4b9)
            check_type(argname="argument scope", value=scope, expected_type=type_hints["scope"])
            check_type(argname="argument id", value=id, expected_type=type_hints["id"])
        props = LoginSetProps(metadata=metadata, spec=spec)

        jsii.create(self.__class__, self, [scope, id, props])

    @jsii.member(jsii_name="manifest")
    @builtins.classmethod
    def manifest(
        cls,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["LoginSetSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> typing.Any:
        '''Renders a Kubernetes manifest for "LoginSet".

        This can be used to inline resource manifests inside other objects (e.g. as templates).

        :param metadata: 
        :param spec: LoginSetSpec defines the desired state of LoginSet.
        '''
        props = LoginSetProps(metadata=metadata, spec=spec)

        return typing.cast(typing.Any, jsii.sinvoke(cls, "manifest", [props]))

    @jsii.member(jsii_name="toJson")
    def to_json(self) -> typing.Any:
        '''Renders the object to Kubernetes JSON.'''
        return typing.cast(typing.Any, jsii.invoke(self, "toJson", []))

    @jsii.python.classproperty
    @jsii.member(jsii_name="GVK")
    def GVK(cls) -> "_cdk8s_d3d9af27.GroupVersionKind":
        '''Returns the apiVersion and kind for "LoginSet".'''
        return typing.cast("_cdk8s_d3d9af27.GroupVersionKind", jsii.sget(cls, "GVK"))


@jsii.data_type(
    jsii_type="netslurmslinky.LoginSetProps",
    jsii_struct_bases=[],
    name_mapping={"metadata": "metadata", "spec": "spec"},
)
class LoginSetProps:
    def __init__(
        self,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["LoginSetSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''LoginSet is the Schema for the loginsets API.

        :param metadata: 
        :param spec: LoginSetSpec defines the desired state of LoginSet.

        :schema: LoginSet
        '''
        if isinstance(metadata, dict):
            metadata = _cdk8s_d3d9af27.ApiObjectMetadata(**metadata)
        if isinstance(spec, dict):
            spec = LoginSetSpec(**spec)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__dcd2d307a9574362a24c40d8db70fda554d3e77bfaabee93287b8a65e24ec556)
            check_type(argname="argument metadata", value=metadata, expected_type=type_hints["metadata"])
            check_type(argname="argument spec", value=spec, expected_type=type_hints["spec"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if metadata is not None:
            self._values["metadata"] = metadata
        if spec is not None:
            self._values["spec"] = spec

    @builtins.property
    def metadata(self) -> typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"]:
        '''
        :schema: LoginSet#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"], result)

    @builtins.property
    def spec(self) -> typing.Optional["LoginSetSpec"]:
        '''LoginSetSpec defines the desired state of LoginSet.

        :schema: LoginSet#spec
        '''
        result = self._values.get("spec")
        return typing.cast(typing.Optional["LoginSetSpec"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "LoginSetProps(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.LoginSetSpec",
    jsii_struct_bases=[],
    name_mapping={
        "controller_ref": "controllerRef",
        "sssd_conf_ref": "sssdConfRef",
        "extra_sshd_config": "extraSshdConfig",
        "initconf": "initconf",
        "login": "login",
        "replicas": "replicas",
        "root_ssh_authorized_keys": "rootSshAuthorizedKeys",
        "service": "service",
        "strategy": "strategy",
        "template": "template",
    },
)
class LoginSetSpec:
    def __init__(
        self,
        *,
        controller_ref: typing.Union["LoginSetSpecControllerRef", typing.Dict[builtins.str, typing.Any]],
        sssd_conf_ref: typing.Union["LoginSetSpecSssdConfRef", typing.Dict[builtins.str, typing.Any]],
        extra_sshd_config: typing.Optional[builtins.str] = None,
        initconf: typing.Any = None,
        login: typing.Any = None,
        replicas: typing.Optional[jsii.Number] = None,
        root_ssh_authorized_keys: typing.Optional[builtins.str] = None,
        service: typing.Optional[typing.Union["LoginSetSpecService", typing.Dict[builtins.str, typing.Any]]] = None,
        strategy: typing.Optional[typing.Union["LoginSetSpecStrategy", typing.Dict[builtins.str, typing.Any]]] = None,
        template: typing.Optional[typing.Union["LoginSetSpecTemplate", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''LoginSetSpec defines the desired state of LoginSet.

        :param controller_ref: controllerRef is a reference to the Controller CR to which this has membership.
        :param sssd_conf_ref: SssdConfRef is a reference to a secret containing the ``sssd.conf``.
        :param extra_sshd_config: ExtraSshdConfig is added to the end of ``sshd_config``. Ref: https://man7.org/linux/man-pages/man5/sshd_config.5.html
        :param initconf: The initconf container configuration. See corev1.Container spec. Ref: https://github.com/kubernetes/api/blob/master/core/v1/types.go#L2885
        :param login: The login container configuration. See corev1.Container spec. Ref: https://github.com/kubernetes/api/blob/master/core/v1/types.go#L2885
        :param replicas: replicas is the desired number of replicas of the given Template. These are replicas in the sense that they are instantiations of the same Template, but individual replicas also have a consistent identity. If unspecified, defaults to 1.
        :param root_ssh_authorized_keys: RootSshAuthorizedKeys is ``root/.ssh/authorized_keys``.
        :param service: Service defines a template for a Kubernetes Service object.
        :param strategy: Strategy is the deployment strategy to use to replace existing pods with new ones. Ref: https://kubernetes.io/docs/concepts/workloads/controllers/deployment/#strategy
        :param template: Template is the object that describes the pod that will be created if insufficient replicas are detected. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#pod-template

        :schema: LoginSetSpec
        '''
        if isinstance(controller_ref, dict):
            controller_ref = LoginSetSpecControllerRef(**controller_ref)
        if isinstance(sssd_conf_ref, dict):
            sssd_conf_ref = LoginSetSpecSssdConfRef(**sssd_conf_ref)
        if isinstance(service, dict):
            service = LoginSetSpecService(**service)
        if isinstance(strategy, dict):
            strategy = LoginSetSpecStrategy(**strategy)
        if isinstance(template, dict):
            template = LoginSetSpecTemplate(**template)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__91c75a0172d1bf11de4ab7ed92328e67e73659be14590f93dc6d48e19a4363e8)
            check_type(argname="argument controller_ref", value=controller_ref, expected_type=type_hints["controller_ref"])
            check_type(argname="argument sssd_conf_ref", value=sssd_conf_ref, expected_type=type_hints["sssd_conf_ref"])
            check_type(argname="argument extra_sshd_config", value=extra_sshd_config, expected_type=type_hints["extra_sshd_config"])
            check_type(argname="argument initconf", value=initconf, expected_type=type_hints["initconf"])
            check_type(argname="argument login", value=login, expected_type=type_hints["login"])
            check_type(argname="argument replicas", value=replicas, expected_type=type_hints["replicas"])
            check_type(argname="argument root_ssh_authorized_keys", value=root_ssh_authorized_keys, expected_type=type_hints["root_ssh_authorized_keys"])
            check_type(argname="argument service", value=service, expected_type=type_hints["service"])
            check_type(argname="argument strategy", value=strategy, expected_type=type_hints["strategy"])
            check_type(argname="argument template", value=template, expected_type=type_hints["template"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "controller_ref": controller_ref,
            "sssd_conf_ref": sssd_conf_ref,
        }
        if extra_sshd_config is not None:
            self._values["extra_sshd_config"] = extra_sshd_config
        if initconf is not None:
            self._values["initconf"] = initconf
        if login is not None:
            self._values["login"] = login
        if replicas is not None:
            self._values["replicas"] = replicas
        if root_ssh_authorized_keys is not None:
            self._values["root_ssh_authorized_keys"] = root_ssh_authorized_keys
        if service is not None:
            self._values["service"] = service
        if strategy is not None:
            self._values["strategy"] = strategy
        if template is not None:
            self._values["template"] = template

    @builtins.property
    def controller_ref(self) -> "LoginSetSpecControllerRef":
        '''controllerRef is a reference to the Controller CR to which this has membership.

        :schema: LoginSetSpec#controllerRef
        '''
        result = self._values.get("controller_ref")
        assert result is not None, "Required property 'controller_ref' is missing"
        return typing.cast("LoginSetSpecControllerRef", result)

    @builtins.property
    def sssd_conf_ref(self) -> "LoginSetSpecSssdConfRef":
        '''SssdConfRef is a reference to a secret containing the ``sssd.conf``.

        :schema: LoginSetSpec#sssdConfRef
        '''
        result = self._values.get("sssd_conf_ref")
        assert result is not None, "Required property 'sssd_conf_ref' is missing"
        return typing.cast("LoginSetSpecSssdConfRef", result)

    @builtins.property
    def extra_sshd_config(self) -> typing.Optional[builtins.str]:
        '''ExtraSshdConfig is added to the end of ``sshd_config``.

        Ref: https://man7.org/linux/man-pages/man5/sshd_config.5.html

        :schema: LoginSetSpec#extraSshdConfig
        '''
        result = self._values.get("extra_sshd_config")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def initconf(self) -> typing.Any:
        '''The initconf container configuration.

        See corev1.Container spec.
        Ref: https://github.com/kubernetes/api/blob/master/core/v1/types.go#L2885

        :schema: LoginSetSpec#initconf
        '''
        result = self._values.get("initconf")
        return typing.cast(typing.Any, result)

    @builtins.property
    def login(self) -> typing.Any:
        '''The login container configuration.

        See corev1.Container spec.
        Ref: https://github.com/kubernetes/api/blob/master/core/v1/types.go#L2885

        :schema: LoginSetSpec#login
        '''
        result = self._values.get("login")
        return typing.cast(typing.Any, result)

    @builtins.property
    def replicas(self) -> typing.Optional[jsii.Number]:
        '''replicas is the desired number of replicas of the given Template.

        These are replicas in the sense that they are instantiations of the
        same Template, but individual replicas also have a consistent identity.
        If unspecified, defaults to 1.

        :schema: LoginSetSpec#replicas
        '''
        result = self._values.get("replicas")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def root_ssh_authorized_keys(self) -> typing.Optional[builtins.str]:
        '''RootSshAuthorizedKeys is ``root/.ssh/authorized_keys``.

        :schema: LoginSetSpec#rootSshAuthorizedKeys
        '''
        result = self._values.get("root_ssh_authorized_keys")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def service(self) -> typing.Optional["LoginSetSpecService"]:
        '''Service defines a template for a Kubernetes Service object.

        :schema: LoginSetSpec#service
        '''
        result = self._values.get("service")
        return typing.cast(typing.Optional["LoginSetSpecService"], result)

    @builtins.property
    def strategy(self) -> typing.Optional["LoginSetSpecStrategy"]:
        '''Strategy is the deployment strategy to use to replace existing pods with new ones.

        Ref: https://kubernetes.io/docs/concepts/workloads/controllers/deployment/#strategy

        :schema: LoginSetSpec#strategy
        '''
        result = self._values.get("strategy")
        return typing.cast(typing.Optional["LoginSetSpecStrategy"], result)

    @builtins.property
    def template(self) -> typing.Optional["LoginSetSpecTemplate"]:
        '''Template is the object that describes the pod that will be created if insufficient replicas are detected.

        More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#pod-template

        :schema: LoginSetSpec#template
        '''
        result = self._values.get("template")
        return typing.cast(typing.Optional["LoginSetSpecTemplate"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "LoginSetSpec(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.LoginSetSpecControllerRef",
    jsii_struct_bases=[],
    name_mapping={"name": "name"},
)
class LoginSetSpecControllerRef:
    def __init__(self, *, name: typing.Optional[builtins.str] = None) -> None:
        '''controllerRef is a reference to the Controller CR to which this has membership.

        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: LoginSetSpecControllerRef
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__7f09232bfac36df663de91ccbb25d056cd23754d7da465397d550b291688ea1e)
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if name is not None:
            self._values["name"] = name

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: LoginSetSpecControllerRef#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "LoginSetSpecControllerRef(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.LoginSetSpecService",
    jsii_struct_bases=[],
    name_mapping={
        "metadata": "metadata",
        "node_port": "nodePort",
        "port": "port",
        "spec": "spec",
    },
)
class LoginSetSpecService:
    def __init__(
        self,
        *,
        metadata: typing.Optional[typing.Union["LoginSetSpecServiceMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        node_port: typing.Optional[jsii.Number] = None,
        port: typing.Optional[jsii.Number] = None,
        spec: typing.Any = None,
    ) -> None:
        '''Service defines a template for a Kubernetes Service object.

        :param metadata: Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
        :param node_port: The port on each node on which this service is exposed when type is NodePort or LoadBalancer. Usually assigned by the system. If a value is specified, in-range, and not in use it will be used, otherwise the operation will fail. If not specified, a port will be allocated if this Service requires one. If this field is specified when creating a Service which does not need it, creation will fail.
        :param port: The external service port number.
        :param spec: ServiceSpec describes the attributes that a user creates on a service.

        :schema: LoginSetSpecService
        '''
        if isinstance(metadata, dict):
            metadata = LoginSetSpecServiceMetadata(**metadata)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__8a15619e528c40cd8455824403529f7e48e8a6ddd5f0661ccc33508a0017b79b)
            check_type(argname="argument metadata", value=metadata, expected_type=type_hints["metadata"])
            check_type(argname="argument node_port", value=node_port, expected_type=type_hints["node_port"])
            check_type(argname="argument port", value=port, expected_type=type_hints["port"])
            check_type(argname="argument spec", value=spec, expected_type=type_hints["spec"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if metadata is not None:
            self._values["metadata"] = metadata
        if node_port is not None:
            self._values["node_port"] = node_port
        if port is not None:
            self._values["port"] = port
        if spec is not None:
            self._values["spec"] = spec

    @builtins.property
    def metadata(self) -> typing.Optional["LoginSetSpecServiceMetadata"]:
        '''Standard object's metadata.

        More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata

        :schema: LoginSetSpecService#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["LoginSetSpecServiceMetadata"], result)

    @builtins.property
    def node_port(self) -> typing.Optional[jsii.Number]:
        '''The port on each node on which this service is exposed when type is NodePort or LoadBalancer.

        Usually assigned by the system. If a value is
        specified, in-range, and not in use it will be used, otherwise the
        operation will fail.  If not specified, a port will be allocated if this
        Service requires one.  If this field is specified when creating a
        Service which does not need it, creation will fail.

        :schema: LoginSetSpecService#nodePort
        '''
        result = self._values.get("node_port")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def port(self) -> typing.Optional[jsii.Number]:
        '''The external service port number.

        :schema: LoginSetSpecService#port
        '''
        result = self._values.get("port")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def spec(self) -> typing.Any:
        '''ServiceSpec describes the attributes that a user creates on a service.

        :schema: LoginSetSpecService#spec
        '''
        result = self._values.get("spec")
        return typing.cast(typing.Any, result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "LoginSetSpecService(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.LoginSetSpecServiceMetadata",
    jsii_struct_bases=[],
    name_mapping={"annotations": "annotations", "labels": "labels"},
)
class LoginSetSpecServiceMetadata:
    def __init__(
        self,
        *,
        annotations: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
        labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    ) -> None:
        '''Standard object's metadata.

        More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata

        :param annotations: Annotations is an unstructured key value map stored with a resource that may be set by external tools to store and retrieve arbitrary metadata. They are not queryable and should be preserved when modifying objects. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/annotations
        :param labels: Map of string keys and values that can be used to organize and categorize (scope and select) objects. May match selectors of replication controllers and services. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels

        :schema: LoginSetSpecServiceMetadata
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__0b3442e4119e0231c5aaf38c5f80b0b7f68c48e76080d8c9089b0b256a90827b)
            check_type(argname="argument annotations", value=annotations, expected_type=type_hints["annotations"])
            check_type(argname="argument labels", value=labels, expected_type=type_hints["labels"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if annotations is not None:
            self._values["annotations"] = annotations
        if labels is not None:
            self._values["labels"] = labels

    @builtins.property
    def annotations(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''Annotations is an unstructured key value map stored with a resource that may be set by external tools to store and retrieve arbitrary metadata.

        They are not
        queryable and should be preserved when modifying objects.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/annotations

        :schema: LoginSetSpecServiceMetadata#annotations
        '''
        result = self._values.get("annotations")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    @builtins.property
    def labels(self) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''Map of string keys and values that can be used to organize and categorize (scope and select) objects.

        May match selectors of replication controllers
        and services.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels

        :schema: LoginSetSpecServiceMetadata#labels
        '''
        result = self._values.get("labels")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "LoginSetSpecServiceMetadata(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.LoginSetSpecSssdConfRef",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class LoginSetSpecSssdConfRef:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''SssdConfRef is a reference to a secret containing the ``sssd.conf``.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: LoginSetSpecSssdConfRef
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__d6779d15ef157d4f4ac08b7d4f2c0e1a9880c0e3f9f8ebf6417703831647a9e9)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: LoginSetSpecSssdConfRef#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: LoginSetSpecSssdConfRef#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: LoginSetSpecSssdConfRef#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "LoginSetSpecSssdConfRef(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.LoginSetSpecStrategy",
    jsii_struct_bases=[],
    name_mapping={"rolling_update": "rollingUpdate", "type": "type"},
)
class LoginSetSpecStrategy:
    def __init__(
        self,
        *,
        rolling_update: typing.Optional[typing.Union["LoginSetSpecStrategyRollingUpdate", typing.Dict[builtins.str, typing.Any]]] = None,
        type: typing.Optional[builtins.str] = None,
    ) -> None:
        '''Strategy is the deployment strategy to use to replace existing pods with new ones.

        Ref: https://kubernetes.io/docs/concepts/workloads/controllers/deployment/#strategy

        :param rolling_update: Rolling update config params. Present only if DeploymentStrategyType = RollingUpdate.
        :param type: Type of deployment. Can be "Recreate" or "RollingUpdate". Default is RollingUpdate. Default: RollingUpdate.

        :schema: LoginSetSpecStrategy
        '''
        if isinstance(rolling_update, dict):
            rolling_update = LoginSetSpecStrategyRollingUpdate(**rolling_update)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__7c07ecfb399b12e8cdb58139e079dffb721106ffe5ab0dfc5109cfb5800e3cc5)
            check_type(argname="argument rolling_update", value=rolling_update, expected_type=type_hints["rolling_update"])
            check_type(argname="argument type", value=type, expected_type=type_hints["type"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if rolling_update is not None:
            self._values["rolling_update"] = rolling_update
        if type is not None:
            self._values["type"] = type

    @builtins.property
    def rolling_update(self) -> typing.Optional["LoginSetSpecStrategyRollingUpdate"]:
        '''Rolling update config params.

        Present only if DeploymentStrategyType =
        RollingUpdate.

        :schema: LoginSetSpecStrategy#rollingUpdate
        '''
        result = self._values.get("rolling_update")
        return typing.cast(typing.Optional["LoginSetSpecStrategyRollingUpdate"], result)

    @builtins.property
    def type(self) -> typing.Optional[builtins.str]:
        '''Type of deployment.

        Can be "Recreate" or "RollingUpdate". Default is RollingUpdate.

        :default: RollingUpdate.

        :schema: LoginSetSpecStrategy#type
        '''
        result = self._values.get("type")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "LoginSetSpecStrategy(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.LoginSetSpecStrategyRollingUpdate",
    jsii_struct_bases=[],
    name_mapping={"max_surge": "maxSurge", "max_unavailable": "maxUnavailable"},
)
class LoginSetSpecStrategyRollingUpdate:
    def __init__(
        self,
        *,
        max_surge: typing.Optional["LoginSetSpecStrategyRollingUpdateMaxSurge"] = None,
        max_unavailable: typing.Optional["LoginSetSpecStrategyRollingUpdateMaxUnavailable"] = None,
    ) -> None:
        '''Rolling update config params.

        Present only if DeploymentStrategyType =
        RollingUpdate.

        :param max_surge: The maximum number of pods that can be scheduled above the desired number of pods. Value can be an absolute number (ex: 5) or a percentage of desired pods (ex: 10%). This can not be 0 if MaxUnavailable is 0. Absolute number is calculated from percentage by rounding up. Defaults to 25%. Example: when this is set to 30%, the new ReplicaSet can be scaled up immediately when the rolling update starts, such that the total number of old and new pods do not exceed 130% of desired pods. Once old pods have been killed, new ReplicaSet can be scaled up further, ensuring that total number of pods running at any time during the update is at most 130% of desired pods. Default: 25%.
        :param max_unavailable: The maximum number of pods that can be unavailable during the update. Value can be an absolute number (ex: 5) or a percentage of desired pods (ex: 10%). Absolute number is calculated from percentage by rounding down. This can not be 0 if MaxSurge is 0. Defaults to 25%. Example: when this is set to 30%, the old ReplicaSet can be scaled down to 70% of desired pods immediately when the rolling update starts. Once new pods are ready, old ReplicaSet can be scaled down further, followed by scaling up the new ReplicaSet, ensuring that the total number of pods available at all times during the update is at least 70% of desired pods. Default: 25%.

        :schema: LoginSetSpecStrategyRollingUpdate
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__fcaba4464ec2258f360cf530ec21112831abdb00be123e89e4dafd7bc754c42a)
            check_type(argname="argument max_surge", value=max_surge, expected_type=type_hints["max_surge"])
            check_type(argname="argument max_unavailable", value=max_unavailable, expected_type=type_hints["max_unavailable"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if max_surge is not None:
            self._values["max_surge"] = max_surge
        if max_unavailable is not None:
            self._values["max_unavailable"] = max_unavailable

    @builtins.property
    def max_surge(self) -> typing.Optional["LoginSetSpecStrategyRollingUpdateMaxSurge"]:
        '''The maximum number of pods that can be scheduled above the desired number of pods.

        Value can be an absolute number (ex: 5) or a percentage of desired pods (ex: 10%).
        This can not be 0 if MaxUnavailable is 0.
        Absolute number is calculated from percentage by rounding up.
        Defaults to 25%.
        Example: when this is set to 30%, the new ReplicaSet can be scaled up immediately when
        the rolling update starts, such that the total number of old and new pods do not exceed
        130% of desired pods. Once old pods have been killed,
        new ReplicaSet can be scaled up further, ensuring that total number of pods running
        at any time during the update is at most 130% of desired pods.

        :default: 25%.

        :schema: LoginSetSpecStrategyRollingUpdate#maxSurge
        '''
        result = self._values.get("max_surge")
        return typing.cast(typing.Optional["LoginSetSpecStrategyRollingUpdateMaxSurge"], result)

    @builtins.property
    def max_unavailable(
        self,
    ) -> typing.Optional["LoginSetSpecStrategyRollingUpdateMaxUnavailable"]:
        '''The maximum number of pods that can be unavailable during the update.

        Value can be an absolute number (ex: 5) or a percentage of desired pods (ex: 10%).
        Absolute number is calculated from percentage by rounding down.
        This can not be 0 if MaxSurge is 0.
        Defaults to 25%.
        Example: when this is set to 30%, the old ReplicaSet can be scaled down to 70% of desired pods
        immediately when the rolling update starts. Once new pods are ready, old ReplicaSet
        can be scaled down further, followed by scaling up the new ReplicaSet, ensuring
        that the total number of pods available at all times during the update is at
        least 70% of desired pods.

        :default: 25%.

        :schema: LoginSetSpecStrategyRollingUpdate#maxUnavailable
        '''
        result = self._values.get("max_unavailable")
        return typing.cast(typing.Optional["LoginSetSpecStrategyRollingUpdateMaxUnavailable"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "LoginSetSpecStrategyRollingUpdate(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class LoginSetSpecStrategyRollingUpdateMaxSurge(
    metaclass=jsii.JSIIMeta,
    jsii_type="netslurmslinky.LoginSetSpecStrategyRollingUpdateMaxSurge",
):
    '''The maximum number of pods that can be scheduled above the desired number of pods.

    Value can be an absolute number (ex: 5) or a percentage of desired pods (ex: 10%).
    This can not be 0 if MaxUnavailable is 0.
    Absolute number is calculated from percentage by rounding up.
    Defaults to 25%.
    Example: when this is set to 30%, the new ReplicaSet can be scaled up immediately when
    the rolling update starts, such that the total number of old and new pods do not exceed
    130% of desired pods. Once old pods have been killed,
    new ReplicaSet can be scaled up further, ensuring that total number of pods running
    at any time during the update is at most 130% of desired pods.

    :default: 25%.

    :schema: LoginSetSpecStrategyRollingUpdateMaxSurge
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(
        cls,
        value: jsii.Number,
    ) -> "LoginSetSpecStrategyRollingUpdateMaxSurge":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__59440c362db49173f3f26159ec8ff80465d529db5507002cc5d46bb9fa91f7b5)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("LoginSetSpecStrategyRollingUpdateMaxSurge", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(
        cls,
        value: builtins.str,
    ) -> "LoginSetSpecStrategyRollingUpdateMaxSurge":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__f5352ed5bbcaaa81ac33cb8d7663bd80ce0f1f9c70b0f24842f6e957d3443dc3)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("LoginSetSpecStrategyRollingUpdateMaxSurge", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


class LoginSetSpecStrategyRollingUpdateMaxUnavailable(
    metaclass=jsii.JSIIMeta,
    jsii_type="netslurmslinky.LoginSetSpecStrategyRollingUpdateMaxUnavailable",
):
    '''The maximum number of pods that can be unavailable during the update.

    Value can be an absolute number (ex: 5) or a percentage of desired pods (ex: 10%).
    Absolute number is calculated from percentage by rounding down.
    This can not be 0 if MaxSurge is 0.
    Defaults to 25%.
    Example: when this is set to 30%, the old ReplicaSet can be scaled down to 70% of desired pods
    immediately when the rolling update starts. Once new pods are ready, old ReplicaSet
    can be scaled down further, followed by scaling up the new ReplicaSet, ensuring
    that the total number of pods available at all times during the update is at
    least 70% of desired pods.

    :default: 25%.

    :schema: LoginSetSpecStrategyRollingUpdateMaxUnavailable
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(
        cls,
        value: jsii.Number,
    ) -> "LoginSetSpecStrategyRollingUpdateMaxUnavailable":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__df88d0762ead917f4d24321f2580c197c15c72f26bc80971fe9ca6ba04d999fb)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("LoginSetSpecStrategyRollingUpdateMaxUnavailable", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(
        cls,
        value: builtins.str,
    ) -> "LoginSetSpecStrategyRollingUpdateMaxUnavailable":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__21d015e0f9d11038f4d1ac60ab830e80e3c4ad9b16a39ed2784e8cf36ea361cd)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("LoginSetSpecStrategyRollingUpdateMaxUnavailable", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


@jsii.data_type(
    jsii_type="netslurmslinky.LoginSetSpecTemplate",
    jsii_struct_bases=[],
    name_mapping={"metadata": "metadata", "spec": "spec"},
)
class LoginSetSpecTemplate:
    def __init__(
        self,
        *,
        metadata: typing.Optional[typing.Union["LoginSetSpecTemplateMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Any = None,
    ) -> None:
        '''Template is the object that describes the pod that will be created if insufficient replicas are detected.

        More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#pod-template

        :param metadata: Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
        :param spec: PodSpec is a description of a pod.

        :schema: LoginSetSpecTemplate
        '''
        if isinstance(metadata, dict):
            metadata = LoginSetSpecTemplateMetadata(**metadata)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__8cb99dfd476160e79d592ac6f8b0dac4f836da8670060fa9e50fb80b05420009)
            check_type(argname="argument metadata", value=metadata, expected_type=type_hints["metadata"])
            check_type(argname="argument spec", value=spec, expected_type=type_hints["spec"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if metadata is not None:
            self._values["metadata"] = metadata
        if spec is not None:
            self._values["spec"] = spec

    @builtins.property
    def metadata(self) -> typing.Optional["LoginSetSpecTemplateMetadata"]:
        '''Standard object's metadata.

        More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata

        :schema: LoginSetSpecTemplate#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["LoginSetSpecTemplateMetadata"], result)

    @builtins.property
    def spec(self) -> typing.Any:
        '''PodSpec is a description of a pod.

        :schema: LoginSetSpecTemplate#spec
        '''
        result = self._values.get("spec")
        return typing.cast(typing.Any, result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "LoginSetSpecTemplate(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.LoginSetSpecTemplateMetadata",
    jsii_struct_bases=[],
    name_mapping={"annotations": "annotations", "labels": "labels"},
)
class LoginSetSpecTemplateMetadata:
    def __init__(
        self,
        *,
        annotations: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
        labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    ) -> None:
        '''Standard object's metadata.

        More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata

        :param annotations: Annotations is an unstructured key value map stored with a resource that may be set by external tools to store and retrieve arbitrary metadata. They are not queryable and should be preserved when modifying objects. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/annotations
        :param labels: Map of string keys and values that can be used to organize and categorize (scope and select) objects. May match selectors of replication controllers and services. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels

        :schema: LoginSetSpecTemplateMetadata
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__43a7a52c0b5382089f4b1c87cc967fe218088b1692957ae448691c7d1c26ef32)
            check_type(argname="argument annotations", value=annotations, expected_type=type_hints["annotations"])
            check_type(argname="argument labels", value=labels, expected_type=type_hints["labels"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if annotations is not None:
            self._values["annotations"] = annotations
        if labels is not None:
            self._values["labels"] = labels

    @builtins.property
    def annotations(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''Annotations is an unstructured key value map stored with a resource that may be set by external tools to store and retrieve arbitrary metadata.

        They are not
        queryable and should be preserved when modifying objects.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/annotations

        :schema: LoginSetSpecTemplateMetadata#annotations
        '''
        result = self._values.get("annotations")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    @builtins.property
    def labels(self) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''Map of string keys and values that can be used to organize and categorize (scope and select) objects.

        May match selectors of replication controllers
        and services.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels

        :schema: LoginSetSpecTemplateMetadata#labels
        '''
        result = self._values.get("labels")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "LoginSetSpecTemplateMetadata(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class NodeSet(
    _cdk8s_d3d9af27.ApiObject,
    metaclass=jsii.JSIIMeta,
    jsii_type="netslurmslinky.NodeSet",
):
    '''NodeSet is the Schema for the nodesets API.

    :schema: NodeSet
    '''

    def __init__(
        self,
        scope: "_constructs_77d1e7e8.Construct",
        id: builtins.str,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["NodeSetSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Defines a "NodeSet" API object.

        :param scope: the scope in which to define this object.
        :param id: a scope-local name for the object.
        :param metadata: 
        :param spec: NodeSetSpec defines the desired state of NodeSet.
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__7b4cbb3038264832683e7d3965015557ee1fe69b38a0f42062208aed99d1b789)
            check_type(argname="argument scope", value=scope, expected_type=type_hints["scope"])
            check_type(argname="argument id", value=id, expected_type=type_hints["id"])
        props = NodeSetProps(metadata=metadata, spec=spec)

        jsii.create(self.__class__, self, [scope, id, props])

    @jsii.member(jsii_name="manifest")
    @builtins.classmethod
    def manifest(
        cls,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["NodeSetSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> typing.Any:
        '''Renders a Kubernetes manifest for "NodeSet".

        This can be used to inline resource manifests inside other objects (e.g. as templates).

        :param metadata: 
        :param spec: NodeSetSpec defines the desired state of NodeSet.
        '''
        props = NodeSetProps(metadata=metadata, spec=spec)

        return typing.cast(typing.Any, jsii.sinvoke(cls, "manifest", [props]))

    @jsii.member(jsii_name="toJson")
    def to_json(self) -> typing.Any:
        '''Renders the object to Kubernetes JSON.'''
        return typing.cast(typing.Any, jsii.invoke(self, "toJson", []))

    @jsii.python.classproperty
    @jsii.member(jsii_name="GVK")
    def GVK(cls) -> "_cdk8s_d3d9af27.GroupVersionKind":
        '''Returns the apiVersion and kind for "NodeSet".'''
        return typing.cast("_cdk8s_d3d9af27.GroupVersionKind", jsii.sget(cls, "GVK"))


@jsii.data_type(
    jsii_type="netslurmslinky.NodeSetProps",
    jsii_struct_bases=[],
    name_mapping={"metadata": "metadata", "spec": "spec"},
)
class NodeSetProps:
    def __init__(
        self,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["NodeSetSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''NodeSet is the Schema for the nodesets API.

        :param metadata: 
        :param spec: NodeSetSpec defines the desired state of NodeSet.

        :schema: NodeSet
        '''
        if isinstance(metadata, dict):
            metadata = _cdk8s_d3d9af27.ApiObjectMetadata(**metadata)
        if isinstance(spec, dict):
            spec = NodeSetSpec(**spec)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__01ebdaf1f9fc9dfcb4b897b4fcab3ef75b10f83e284363b436d2d6ff0f9972a3)
            check_type(argname="argument metadata", value=metadata, expected_type=type_hints["metadata"])
            check_type(argname="argument spec", value=spec, expected_type=type_hints["spec"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if metadata is not None:
            self._values["metadata"] = metadata
        if spec is not None:
            self._values["spec"] = spec

    @builtins.property
    def metadata(self) -> typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"]:
        '''
        :schema: NodeSet#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"], result)

    @builtins.property
    def spec(self) -> typing.Optional["NodeSetSpec"]:
        '''NodeSetSpec defines the desired state of NodeSet.

        :schema: NodeSet#spec
        '''
        result = self._values.get("spec")
        return typing.cast(typing.Optional["NodeSetSpec"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "NodeSetProps(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.NodeSetSpec",
    jsii_struct_bases=[],
    name_mapping={
        "controller_ref": "controllerRef",
        "extra_conf": "extraConf",
        "logfile": "logfile",
        "min_ready_seconds": "minReadySeconds",
        "ordinal_padding": "ordinalPadding",
        "oversubscribe_node": "oversubscribeNode",
        "partition": "partition",
        "persistent_volume_claim_retention_policy": "persistentVolumeClaimRetentionPolicy",
        "pin_to_node": "pinToNode",
        "prune_slurm_node_records": "pruneSlurmNodeRecords",
        "replicas": "replicas",
        "revision_history_limit": "revisionHistoryLimit",
        "scaling_mode": "scalingMode",
        "slurmd": "slurmd",
        "ssh": "ssh",
        "template": "template",
        "update_strategy": "updateStrategy",
        "volume_claim_templates": "volumeClaimTemplates",
        "workload_disruption_protection": "workloadDisruptionProtection",
    },
)
class NodeSetSpec:
    def __init__(
        self,
        *,
        controller_ref: typing.Union["NodeSetSpecControllerRef", typing.Dict[builtins.str, typing.Any]],
        extra_conf: typing.Optional[builtins.str] = None,
        logfile: typing.Any = None,
        min_ready_seconds: typing.Optional[jsii.Number] = None,
        ordinal_padding: typing.Optional[jsii.Number] = None,
        oversubscribe_node: typing.Optional[builtins.bool] = None,
        partition: typing.Optional[typing.Union["NodeSetSpecPartition", typing.Dict[builtins.str, typing.Any]]] = None,
        persistent_volume_claim_retention_policy: typing.Optional[typing.Union["NodeSetSpecPersistentVolumeClaimRetentionPolicy", typing.Dict[builtins.str, typing.Any]]] = None,
        pin_to_node: typing.Optional[builtins.bool] = None,
        prune_slurm_node_records: typing.Optional["NodeSetSpecPruneSlurmNodeRecords"] = None,
        replicas: typing.Optional[jsii.Number] = None,
        revision_history_limit: typing.Optional[jsii.Number] = None,
        scaling_mode: typing.Optional["NodeSetSpecScalingMode"] = None,
        slurmd: typing.Any = None,
        ssh: typing.Optional[typing.Union["NodeSetSpecSsh", typing.Dict[builtins.str, typing.Any]]] = None,
        template: typing.Optional[typing.Union["NodeSetSpecTemplate", typing.Dict[builtins.str, typing.Any]]] = None,
        update_strategy: typing.Optional[typing.Union["NodeSetSpecUpdateStrategy", typing.Dict[builtins.str, typing.Any]]] = None,
        volume_claim_templates: typing.Any = None,
        workload_disruption_protection: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''NodeSetSpec defines the desired state of NodeSet.

        :param controller_ref: controllerRef is a reference to the Controller CR to which this has membership.
        :param extra_conf: ExtraConf is added to the slurmd args as ``--conf <extraConf>``. Ref: https://slurm.schedmd.com/slurmd.html#OPT_conf-%3Cnode-parameters%3E
        :param logfile: The logfile sidecar configuration.
        :param min_ready_seconds: minReadySeconds is the minimum number of seconds for which a newly created NodeSet Pod should be ready without any of its container crashing, for it to be considered available. Defaults to 0 (pod will be considered available as soon as it is ready). Default: 0 (pod will be considered available as soon as it is ready).
        :param ordinal_padding: OrdinalPadding indicates how many digit places to pad with zeroes when constructing the pod ordinal. This is used only when ``scalingMode=StatefulSet``.
        :param oversubscribe_node: OversubscribeNode indicates these NodeSet Pods can reside on the same Kubernetes Node (no anti-affinity). WARNING: This option is **NOT** recommended for production usage.
        :param partition: Partition defines the Slurm partition configuration for this NodeSet.
        :param persistent_volume_claim_retention_policy: PersistentVolumeClaimRetentionPolicy describes the policy used for PVCs created from the NodeSet VolumeClaimTemplates. This requires the NodeSetAutoDeletePVC feature gate to be enabled, which is alpha.
        :param pin_to_node: PinToNode controls whether pods are pinned to the Kubernetes node they were first scheduled on. When enabled, pods will always run on the Kube node they were first scheduled on, regardless of its availability. Kubernetes node pinnings are reset when: - The Node does not exist. - The new NodeSet pod no longer matches the Node it was pinned to. When disabled, all stored node pinnings are removed. Used only when ``scalingMode=StatefulSet``.
        :param prune_slurm_node_records: PruneSlurmNodeRecords controls when the operator deletes Slurm node records.
        :param replicas: replicas is the desired number of replicas of the given Template. These are replicas in the sense that they are instantiations of the same Template, but individual replicas also have a consistent identity. If unspecified, defaults to 1. When ScalingMode is daemonset, this field is ignored.
        :param revision_history_limit: revisionHistoryLimit is the maximum number of revisions that will be maintained in the NodeSet's revision history. The revision history consists of all revisions not represented by a currently applied NodeSetSpec version. The default value is 0.
        :param scaling_mode: ScalingMode controls how the NodeSet scales pods. "StatefulSet" uses a fixed replica count; "DaemonSet" schedules one pod per matching node.
        :param slurmd: The slurmd container configuration. See corev1.Container spec. Ref: https://github.com/kubernetes/api/blob/master/core/v1/types.go#L2885
        :param ssh: SSH configuration for worker pods.
        :param template: Template is the object that describes the pod that will be created if insufficient replicas are detected. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#pod-template
        :param update_strategy: updateStrategy indicates the NodeSetUpdateStrategy that will be employed to update Pods in the NodeSet when a revision is made to Template.
        :param volume_claim_templates: volumeClaimTemplates is a list of claims that pods are allowed to reference. The NodeSet controller is responsible for mapping network identities to claims in a way that maintains the identity of a pod. Every claim in this list must have at least one matching (by name) volumeMount in one container in the template. A claim in this list takes precedence over any volumes in the template, with the same name.
        :param workload_disruption_protection: WorkloadDisruptionProtection controls whether or not pods in this nodeset which are actively running Slurm jobs are protected by a Pod Disruption Budget. See https://kubernetes.io/docs/tasks/run-application/configure-pdb/ for more information.

        :schema: NodeSetSpec
        '''
        if isinstance(controller_ref, dict):
            controller_ref = NodeSetSpecControllerRef(**controller_ref)
        if isinstance(partition, dict):
            partition = NodeSetSpecPartition(**partition)
        if isinstance(persistent_volume_claim_retention_policy, dict):
            persistent_volume_claim_retention_policy = NodeSetSpecPersistentVolumeClaimRetentionPolicy(**persistent_volume_claim_retention_policy)
        if isinstance(ssh, dict):
            ssh = NodeSetSpecSsh(**ssh)
        if isinstance(template, dict):
            template = NodeSetSpecTemplate(**template)
        if isinstance(update_strategy, dict):
            update_strategy = NodeSetSpecUpdateStrategy(**update_strategy)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__524ccb107afae0ace906ed8e0fd4eac4ff2fcebac06ec2f047ae17a0228b6531)
            check_type(argname="argument controller_ref", value=controller_ref, expected_type=type_hints["controller_ref"])
            check_type(argname="argument extra_conf", value=extra_conf, expected_type=type_hints["extra_conf"])
            check_type(argname="argument logfile", value=logfile, expected_type=type_hints["logfile"])
            check_type(argname="argument min_ready_seconds", value=min_ready_seconds, expected_type=type_hints["min_ready_seconds"])
            check_type(argname="argument ordinal_padding", value=ordinal_padding, expected_type=type_hints["ordinal_padding"])
            check_type(argname="argument oversubscribe_node", value=oversubscribe_node, expected_type=type_hints["oversubscribe_node"])
            check_type(argname="argument partition", value=partition, expected_type=type_hints["partition"])
            check_type(argname="argument persistent_volume_claim_retention_policy", value=persistent_volume_claim_retention_policy, expected_type=type_hints["persistent_volume_claim_retention_policy"])
            check_type(argname="argument pin_to_node", value=pin_to_node, expected_type=type_hints["pin_to_node"])
            check_type(argname="argument prune_slurm_node_records", value=prune_slurm_node_records, expected_type=type_hints["prune_slurm_node_records"])
            check_type(argname="argument replicas", value=replicas, expected_type=type_hints["replicas"])
            check_type(argname="argument revision_history_limit", value=revision_history_limit, expected_type=type_hints["revision_history_limit"])
            check_type(argname="argument scaling_mode", value=scaling_mode, expected_type=type_hints["scaling_mode"])
            check_type(argname="argument slurmd", value=slurmd, expected_type=type_hints["slurmd"])
            check_type(argname="argument ssh", value=ssh, expected_type=type_hints["ssh"])
            check_type(argname="argument template", value=template, expected_type=type_hints["template"])
            check_type(argname="argument update_strategy", value=update_strategy, expected_type=type_hints["update_strategy"])
            check_type(argname="argument volume_claim_templates", value=volume_claim_templates, expected_type=type_hints["volume_claim_templates"])
            check_type(argname="argument workload_disruption_protection", value=workload_disruption_protection, expected_type=type_hints["workload_disruption_protection"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "controller_ref": controller_ref,
        }
        if extra_conf is not None:
            self._values["extra_conf"] = extra_conf
        if logfile is not None:
            self._values["logfile"] = logfile
        if min_ready_seconds is not None:
            self._values["min_ready_seconds"] = min_ready_seconds
        if ordinal_padding is not None:
            self._values["ordinal_padding"] = ordinal_padding
        if oversubscribe_node is not None:
            self._values["oversubscribe_node"] = oversubscribe_node
        if partition is not None:
            self._values["partition"] = partition
        if persistent_volume_claim_retention_policy is not None:
            self._values["persistent_volume_claim_retention_policy"] = persistent_volume_claim_retention_policy
        if pin_to_node is not None:
            self._values["pin_to_node"] = pin_to_node
        if prune_slurm_node_records is not None:
            self._values["prune_slurm_node_records"] = prune_slurm_node_records
        if replicas is not None:
            self._values["replicas"] = replicas
        if revision_history_limit is not None:
            self._values["revision_history_limit"] = revision_history_limit
        if scaling_mode is not None:
            self._values["scaling_mode"] = scaling_mode
        if slurmd is not None:
            self._values["slurmd"] = slurmd
        if ssh is not None:
            self._values["ssh"] = ssh
        if template is not None:
            self._values["template"] = template
        if update_strategy is not None:
            self._values["update_strategy"] = update_strategy
        if volume_claim_templates is not None:
            self._values["volume_claim_templates"] = volume_claim_templates
        if workload_disruption_protection is not None:
            self._values["workload_disruption_protection"] = workload_disruption_protection

    @builtins.property
    def controller_ref(self) -> "NodeSetSpecControllerRef":
        '''controllerRef is a reference to the Controller CR to which this has membership.

        :schema: NodeSetSpec#controllerRef
        '''
        result = self._values.get("controller_ref")
        assert result is not None, "Required property 'controller_ref' is missing"
        return typing.cast("NodeSetSpecControllerRef", result)

    @builtins.property
    def extra_conf(self) -> typing.Optional[builtins.str]:
        '''ExtraConf is added to the slurmd args as ``--conf <extraConf>``.

        Ref: https://slurm.schedmd.com/slurmd.html#OPT_conf-%3Cnode-parameters%3E

        :schema: NodeSetSpec#extraConf
        '''
        result = self._values.get("extra_conf")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def logfile(self) -> typing.Any:
        '''The logfile sidecar configuration.

        :schema: NodeSetSpec#logfile
        '''
        result = self._values.get("logfile")
        return typing.cast(typing.Any, result)

    @builtins.property
    def min_ready_seconds(self) -> typing.Optional[jsii.Number]:
        '''minReadySeconds is the minimum number of seconds for which a newly created NodeSet Pod should be ready without any of its container crashing, for it to be considered available.

        Defaults to 0 (pod will be considered available as soon as it is ready).

        :default: 0 (pod will be considered available as soon as it is ready).

        :schema: NodeSetSpec#minReadySeconds
        '''
        result = self._values.get("min_ready_seconds")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def ordinal_padding(self) -> typing.Optional[jsii.Number]:
        '''OrdinalPadding indicates how many digit places to pad with zeroes when constructing the pod ordinal.

        This is used only when ``scalingMode=StatefulSet``.

        :schema: NodeSetSpec#ordinalPadding
        '''
        result = self._values.get("ordinal_padding")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def oversubscribe_node(self) -> typing.Optional[builtins.bool]:
        '''OversubscribeNode indicates these NodeSet Pods can reside on the same Kubernetes Node (no anti-affinity).

        WARNING: This option is **NOT** recommended for production usage.

        :schema: NodeSetSpec#oversubscribeNode
        '''
        result = self._values.get("oversubscribe_node")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def partition(self) -> typing.Optional["NodeSetSpecPartition"]:
        '''Partition defines the Slurm partition configuration for this NodeSet.

        :schema: NodeSetSpec#partition
        '''
        result = self._values.get("partition")
        return typing.cast(typing.Optional["NodeSetSpecPartition"], result)

    @builtins.property
    def persistent_volume_claim_retention_policy(
        self,
    ) -> typing.Optional["NodeSetSpecPersistentVolumeClaimRetentionPolicy"]:
        '''PersistentVolumeClaimRetentionPolicy describes the policy used for PVCs created from the NodeSet VolumeClaimTemplates.

        This requires the
        NodeSetAutoDeletePVC feature gate to be enabled, which is alpha.

        :schema: NodeSetSpec#persistentVolumeClaimRetentionPolicy
        '''
        result = self._values.get("persistent_volume_claim_retention_policy")
        return typing.cast(typing.Optional["NodeSetSpecPersistentVolumeClaimRetentionPolicy"], result)

    @builtins.property
    def pin_to_node(self) -> typing.Optional[builtins.bool]:
        '''PinToNode controls whether pods are pinned to the Kubernetes node they were first scheduled on.

        When enabled, pods will always run on the Kube node they were first scheduled on, regardless of its availability.
        Kubernetes node pinnings are reset when:

        - The Node does not exist.
        - The new NodeSet pod no longer matches the Node it was pinned to.
          When disabled, all stored node pinnings are removed.
          Used only when ``scalingMode=StatefulSet``.

        :schema: NodeSetSpec#pinToNode
        '''
        result = self._values.get("pin_to_node")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def prune_slurm_node_records(
        self,
    ) -> typing.Optional["NodeSetSpecPruneSlurmNodeRecords"]:
        '''PruneSlurmNodeRecords controls when the operator deletes Slurm node records.

        :schema: NodeSetSpec#pruneSlurmNodeRecords
        '''
        result = self._values.get("prune_slurm_node_records")
        return typing.cast(typing.Optional["NodeSetSpecPruneSlurmNodeRecords"], result)

    @builtins.property
    def replicas(self) -> typing.Optional[jsii.Number]:
        '''replicas is the desired number of replicas of the given Template.

        These are replicas in the sense that they are instantiations of the
        same Template, but individual replicas also have a consistent identity.
        If unspecified, defaults to 1.
        When ScalingMode is daemonset, this field is ignored.

        :schema: NodeSetSpec#replicas
        '''
        result = self._values.get("replicas")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def revision_history_limit(self) -> typing.Optional[jsii.Number]:
        '''revisionHistoryLimit is the maximum number of revisions that will be maintained in the NodeSet's revision history.

        The revision history
        consists of all revisions not represented by a currently applied
        NodeSetSpec version. The default value is 0.

        :schema: NodeSetSpec#revisionHistoryLimit
        '''
        result = self._values.get("revision_history_limit")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def scaling_mode(self) -> typing.Optional["NodeSetSpecScalingMode"]:
        '''ScalingMode controls how the NodeSet scales pods.

        "StatefulSet" uses a fixed replica count; "DaemonSet" schedules one pod per matching node.

        :schema: NodeSetSpec#scalingMode
        '''
        result = self._values.get("scaling_mode")
        return typing.cast(typing.Optional["NodeSetSpecScalingMode"], result)

    @builtins.property
    def slurmd(self) -> typing.Any:
        '''The slurmd container configuration.

        See corev1.Container spec.
        Ref: https://github.com/kubernetes/api/blob/master/core/v1/types.go#L2885

        :schema: NodeSetSpec#slurmd
        '''
        result = self._values.get("slurmd")
        return typing.cast(typing.Any, result)

    @builtins.property
    def ssh(self) -> typing.Optional["NodeSetSpecSsh"]:
        '''SSH configuration for worker pods.

        :schema: NodeSetSpec#ssh
        '''
        result = self._values.get("ssh")
        return typing.cast(typing.Optional["NodeSetSpecSsh"], result)

    @builtins.property
    def template(self) -> typing.Optional["NodeSetSpecTemplate"]:
        '''Template is the object that describes the pod that will be created if insufficient replicas are detected.

        More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#pod-template

        :schema: NodeSetSpec#template
        '''
        result = self._values.get("template")
        return typing.cast(typing.Optional["NodeSetSpecTemplate"], result)

    @builtins.property
    def update_strategy(self) -> typing.Optional["NodeSetSpecUpdateStrategy"]:
        '''updateStrategy indicates the NodeSetUpdateStrategy that will be employed to update Pods in the NodeSet when a revision is made to Template.

        :schema: NodeSetSpec#updateStrategy
        '''
        result = self._values.get("update_strategy")
        return typing.cast(typing.Optional["NodeSetSpecUpdateStrategy"], result)

    @builtins.property
    def volume_claim_templates(self) -> typing.Any:
        '''volumeClaimTemplates is a list of claims that pods are allowed to reference.

        The NodeSet controller is responsible for mapping network identities to
        claims in a way that maintains the identity of a pod. Every claim in
        this list must have at least one matching (by name) volumeMount in one
        container in the template. A claim in this list takes precedence over
        any volumes in the template, with the same name.

        :schema: NodeSetSpec#volumeClaimTemplates
        '''
        result = self._values.get("volume_claim_templates")
        return typing.cast(typing.Any, result)

    @builtins.property
    def workload_disruption_protection(self) -> typing.Optional[builtins.bool]:
        '''WorkloadDisruptionProtection controls whether or not pods in this nodeset which are actively running Slurm jobs are protected by a Pod Disruption Budget.

        See https://kubernetes.io/docs/tasks/run-application/configure-pdb/ for more information.

        :schema: NodeSetSpec#workloadDisruptionProtection
        '''
        result = self._values.get("workload_disruption_protection")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "NodeSetSpec(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.NodeSetSpecControllerRef",
    jsii_struct_bases=[],
    name_mapping={"name": "name"},
)
class NodeSetSpecControllerRef:
    def __init__(self, *, name: typing.Optional[builtins.str] = None) -> None:
        '''controllerRef is a reference to the Controller CR to which this has membership.

        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: NodeSetSpecControllerRef
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__1a542e588525e68fe95cf748661a98129c5f9da20c66d5fe352dc218c8f4b84d)
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if name is not None:
            self._values["name"] = name

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: NodeSetSpecControllerRef#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "NodeSetSpecControllerRef(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.NodeSetSpecPartition",
    jsii_struct_bases=[],
    name_mapping={"enabled": "enabled", "config": "config"},
)
class NodeSetSpecPartition:
    def __init__(
        self,
        *,
        enabled: builtins.bool,
        config: typing.Optional[builtins.str] = None,
    ) -> None:
        '''Partition defines the Slurm partition configuration for this NodeSet.

        :param enabled: Enabled will create a partition for this NodeSet.
        :param config: Config is added to the NodeSet's partition line. Ref: https://slurm.schedmd.com/slurm.conf.html#SECTION_PARTITION-CONFIGURATION

        :schema: NodeSetSpecPartition
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__292e62f1806577ebfd894e8e8663f509e5ecf93c8689f5be6624107ba39b040a)
            check_type(argname="argument enabled", value=enabled, expected_type=type_hints["enabled"])
            check_type(argname="argument config", value=config, expected_type=type_hints["config"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "enabled": enabled,
        }
        if config is not None:
            self._values["config"] = config

    @builtins.property
    def enabled(self) -> builtins.bool:
        '''Enabled will create a partition for this NodeSet.

        :schema: NodeSetSpecPartition#enabled
        '''
        result = self._values.get("enabled")
        assert result is not None, "Required property 'enabled' is missing"
        return typing.cast(builtins.bool, result)

    @builtins.property
    def config(self) -> typing.Optional[builtins.str]:
        '''Config is added to the NodeSet's partition line.

        Ref: https://slurm.schedmd.com/slurm.conf.html#SECTION_PARTITION-CONFIGURATION

        :schema: NodeSetSpecPartition#config
        '''
        result = self._values.get("config")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "NodeSetSpecPartition(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.NodeSetSpecPersistentVolumeClaimRetentionPolicy",
    jsii_struct_bases=[],
    name_mapping={"when_deleted": "whenDeleted", "when_scaled": "whenScaled"},
)
class NodeSetSpecPersistentVolumeClaimRetentionPolicy:
    def __init__(
        self,
        *,
        when_deleted: typing.Optional["NodeSetSpecPersistentVolumeClaimRetentionPolicyWhenDeleted"] = None,
        when_scaled: typing.Optional["NodeSetSpecPersistentVolumeClaimRetentionPolicyWhenScaled"] = None,
    ) -> None:
        '''PersistentVolumeClaimRetentionPolicy describes the policy used for PVCs created from the NodeSet VolumeClaimTemplates.

        This requires the
        NodeSetAutoDeletePVC feature gate to be enabled, which is alpha.

        :param when_deleted: WhenDeleted specifies what happens to PVCs created from NodeSet VolumeClaimTemplates when the NodeSet is deleted. The default policy of ``Retain`` causes PVCs to not be affected by NodeSet deletion. The ``Delete`` policy causes those PVCs to be deleted.
        :param when_scaled: WhenScaled specifies what happens to PVCs created from NodeSet VolumeClaimTemplates when the NodeSet is scaled down. The default policy of ``Retain`` causes PVCs to not be affected by a scaledown. The ``Delete`` policy causes the associated PVCs for any excess pods to be deleted.

        :schema: NodeSetSpecPersistentVolumeClaimRetentionPolicy
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__bf86d998dd5b9c257c995287d44c1c33e2fb2d4f2c0496cf4f8a8a2b2075b520)
            check_type(argname="argument when_deleted", value=when_deleted, expected_type=type_hints["when_deleted"])
            check_type(argname="argument when_scaled", value=when_scaled, expected_type=type_hints["when_scaled"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if when_deleted is not None:
            self._values["when_deleted"] = when_deleted
        if when_scaled is not None:
            self._values["when_scaled"] = when_scaled

    @builtins.property
    def when_deleted(
        self,
    ) -> typing.Optional["NodeSetSpecPersistentVolumeClaimRetentionPolicyWhenDeleted"]:
        '''WhenDeleted specifies what happens to PVCs created from NodeSet VolumeClaimTemplates when the NodeSet is deleted.

        The default policy
        of ``Retain`` causes PVCs to not be affected by NodeSet deletion. The
        ``Delete`` policy causes those PVCs to be deleted.

        :schema: NodeSetSpecPersistentVolumeClaimRetentionPolicy#whenDeleted
        '''
        result = self._values.get("when_deleted")
        return typing.cast(typing.Optional["NodeSetSpecPersistentVolumeClaimRetentionPolicyWhenDeleted"], result)

    @builtins.property
    def when_scaled(
        self,
    ) -> typing.Optional["NodeSetSpecPersistentVolumeClaimRetentionPolicyWhenScaled"]:
        '''WhenScaled specifies what happens to PVCs created from NodeSet VolumeClaimTemplates when the NodeSet is scaled down.

        The default
        policy of ``Retain`` causes PVCs to not be affected by a scaledown. The
        ``Delete`` policy causes the associated PVCs for any excess pods to be
        deleted.

        :schema: NodeSetSpecPersistentVolumeClaimRetentionPolicy#whenScaled
        '''
        result = self._values.get("when_scaled")
        return typing.cast(typing.Optional["NodeSetSpecPersistentVolumeClaimRetentionPolicyWhenScaled"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "NodeSetSpecPersistentVolumeClaimRetentionPolicy(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(
    jsii_type="netslurmslinky.NodeSetSpecPersistentVolumeClaimRetentionPolicyWhenDeleted"
)
class NodeSetSpecPersistentVolumeClaimRetentionPolicyWhenDeleted(enum.Enum):
    '''WhenDeleted specifies what happens to PVCs created from NodeSet VolumeClaimTemplates when the NodeSet is deleted.

    The default policy
    of ``Retain`` causes PVCs to not be affected by NodeSet deletion. The
    ``Delete`` policy causes those PVCs to be deleted.

    :schema: NodeSetSpecPersistentVolumeClaimRetentionPolicyWhenDeleted
    '''

    RETAIN = "RETAIN"
    '''Retain.'''
    DELETE = "DELETE"
    '''Delete.'''


@jsii.enum(
    jsii_type="netslurmslinky.NodeSetSpecPersistentVolumeClaimRetentionPolicyWhenScaled"
)
class NodeSetSpecPersistentVolumeClaimRetentionPolicyWhenScaled(enum.Enum):
    '''WhenScaled specifies what happens to PVCs created from NodeSet VolumeClaimTemplates when the NodeSet is scaled down.

    The default
    policy of ``Retain`` causes PVCs to not be affected by a scaledown. The
    ``Delete`` policy causes the associated PVCs for any excess pods to be
    deleted.

    :schema: NodeSetSpecPersistentVolumeClaimRetentionPolicyWhenScaled
    '''

    RETAIN = "RETAIN"
    '''Retain.'''
    DELETE = "DELETE"
    '''Delete.'''


@jsii.enum(jsii_type="netslurmslinky.NodeSetSpecPruneSlurmNodeRecords")
class NodeSetSpecPruneSlurmNodeRecords(enum.Enum):
    '''PruneSlurmNodeRecords controls when the operator deletes Slurm node records.

    :schema: NodeSetSpecPruneSlurmNodeRecords
    '''

    NEVER = "NEVER"
    '''Never.'''
    NODE_NOT_FOUND = "NODE_NOT_FOUND"
    '''NodeNotFound.'''


@jsii.enum(jsii_type="netslurmslinky.NodeSetSpecScalingMode")
class NodeSetSpecScalingMode(enum.Enum):
    '''ScalingMode controls how the NodeSet scales pods.

    "StatefulSet" uses a fixed replica count; "DaemonSet" schedules one pod per matching node.

    :schema: NodeSetSpecScalingMode
    '''

    DAEMON_SET = "DAEMON_SET"
    '''DaemonSet.'''
    STATEFUL_SET = "STATEFUL_SET"
    '''StatefulSet.'''


@jsii.data_type(
    jsii_type="netslurmslinky.NodeSetSpecSsh",
    jsii_struct_bases=[],
    name_mapping={
        "enabled": "enabled",
        "sssd_conf_ref": "sssdConfRef",
        "extra_sshd_config": "extraSshdConfig",
    },
)
class NodeSetSpecSsh:
    def __init__(
        self,
        *,
        enabled: builtins.bool,
        sssd_conf_ref: typing.Union["NodeSetSpecSshSssdConfRef", typing.Dict[builtins.str, typing.Any]],
        extra_sshd_config: typing.Optional[builtins.str] = None,
    ) -> None:
        '''SSH configuration for worker pods.

        :param enabled: Enabled controls whether SSH access is enabled for this NodeSet.
        :param sssd_conf_ref: SssdConfRef is a reference to a secret containing the ``sssd.conf``.
        :param extra_sshd_config: ExtraSshdConfig is added to the end of ``sshd_config``. Ref: https://man7.org/linux/man-pages/man5/sshd_config.5.html

        :schema: NodeSetSpecSsh
        '''
        if isinstance(sssd_conf_ref, dict):
            sssd_conf_ref = NodeSetSpecSshSssdConfRef(**sssd_conf_ref)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__71e813e44f7a9bcb1f5db85abb3da1f06c67a40321b4a3a5ff7629ff4a6de93b)
            check_type(argname="argument enabled", value=enabled, expected_type=type_hints["enabled"])
            check_type(argname="argument sssd_conf_ref", value=sssd_conf_ref, expected_type=type_hints["sssd_conf_ref"])
            check_type(argname="argument extra_sshd_config", value=extra_sshd_config, expected_type=type_hints["extra_sshd_config"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "enabled": enabled,
            "sssd_conf_ref": sssd_conf_ref,
        }
        if extra_sshd_config is not None:
            self._values["extra_sshd_config"] = extra_sshd_config

    @builtins.property
    def enabled(self) -> builtins.bool:
        '''Enabled controls whether SSH access is enabled for this NodeSet.

        :schema: NodeSetSpecSsh#enabled
        '''
        result = self._values.get("enabled")
        assert result is not None, "Required property 'enabled' is missing"
        return typing.cast(builtins.bool, result)

    @builtins.property
    def sssd_conf_ref(self) -> "NodeSetSpecSshSssdConfRef":
        '''SssdConfRef is a reference to a secret containing the ``sssd.conf``.

        :schema: NodeSetSpecSsh#sssdConfRef
        '''
        result = self._values.get("sssd_conf_ref")
        assert result is not None, "Required property 'sssd_conf_ref' is missing"
        return typing.cast("NodeSetSpecSshSssdConfRef", result)

    @builtins.property
    def extra_sshd_config(self) -> typing.Optional[builtins.str]:
        '''ExtraSshdConfig is added to the end of ``sshd_config``.

        Ref: https://man7.org/linux/man-pages/man5/sshd_config.5.html

        :schema: NodeSetSpecSsh#extraSshdConfig
        '''
        result = self._values.get("extra_sshd_config")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "NodeSetSpecSsh(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.NodeSetSpecSshSssdConfRef",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class NodeSetSpecSshSssdConfRef:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''SssdConfRef is a reference to a secret containing the ``sssd.conf``.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: NodeSetSpecSshSssdConfRef
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__766ce51d95eb5360077b0799c973c7572b31508221fb8ec70bf7eb88d51be9c7)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: NodeSetSpecSshSssdConfRef#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: NodeSetSpecSshSssdConfRef#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: NodeSetSpecSshSssdConfRef#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "NodeSetSpecSshSssdConfRef(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.NodeSetSpecTemplate",
    jsii_struct_bases=[],
    name_mapping={"metadata": "metadata", "spec": "spec"},
)
class NodeSetSpecTemplate:
    def __init__(
        self,
        *,
        metadata: typing.Optional[typing.Union["NodeSetSpecTemplateMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Any = None,
    ) -> None:
        '''Template is the object that describes the pod that will be created if insufficient replicas are detected.

        More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#pod-template

        :param metadata: Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
        :param spec: PodSpec is a description of a pod.

        :schema: NodeSetSpecTemplate
        '''
        if isinstance(metadata, dict):
            metadata = NodeSetSpecTemplateMetadata(**metadata)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__3f782bff5b9ac157fc6817be0de9dd4fd5225a23c60ab05476169981dbc433a2)
            check_type(argname="argument metadata", value=metadata, expected_type=type_hints["metadata"])
            check_type(argname="argument spec", value=spec, expected_type=type_hints["spec"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if metadata is not None:
            self._values["metadata"] = metadata
        if spec is not None:
            self._values["spec"] = spec

    @builtins.property
    def metadata(self) -> typing.Optional["NodeSetSpecTemplateMetadata"]:
        '''Standard object's metadata.

        More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata

        :schema: NodeSetSpecTemplate#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["NodeSetSpecTemplateMetadata"], result)

    @builtins.property
    def spec(self) -> typing.Any:
        '''PodSpec is a description of a pod.

        :schema: NodeSetSpecTemplate#spec
        '''
        result = self._values.get("spec")
        return typing.cast(typing.Any, result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "NodeSetSpecTemplate(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.NodeSetSpecTemplateMetadata",
    jsii_struct_bases=[],
    name_mapping={"annotations": "annotations", "labels": "labels"},
)
class NodeSetSpecTemplateMetadata:
    def __init__(
        self,
        *,
        annotations: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
        labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    ) -> None:
        '''Standard object's metadata.

        More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata

        :param annotations: Annotations is an unstructured key value map stored with a resource that may be set by external tools to store and retrieve arbitrary metadata. They are not queryable and should be preserved when modifying objects. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/annotations
        :param labels: Map of string keys and values that can be used to organize and categorize (scope and select) objects. May match selectors of replication controllers and services. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels

        :schema: NodeSetSpecTemplateMetadata
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__d0c00a63796d2953de5c9bd2b44c01e4968f8d04269acb64ab673a43db35c952)
            check_type(argname="argument annotations", value=annotations, expected_type=type_hints["annotations"])
            check_type(argname="argument labels", value=labels, expected_type=type_hints["labels"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if annotations is not None:
            self._values["annotations"] = annotations
        if labels is not None:
            self._values["labels"] = labels

    @builtins.property
    def annotations(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''Annotations is an unstructured key value map stored with a resource that may be set by external tools to store and retrieve arbitrary metadata.

        They are not
        queryable and should be preserved when modifying objects.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/annotations

        :schema: NodeSetSpecTemplateMetadata#annotations
        '''
        result = self._values.get("annotations")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    @builtins.property
    def labels(self) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''Map of string keys and values that can be used to organize and categorize (scope and select) objects.

        May match selectors of replication controllers
        and services.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels

        :schema: NodeSetSpecTemplateMetadata#labels
        '''
        result = self._values.get("labels")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "NodeSetSpecTemplateMetadata(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.NodeSetSpecUpdateStrategy",
    jsii_struct_bases=[],
    name_mapping={
        "rolling_update": "rollingUpdate",
        "scheduled_update": "scheduledUpdate",
        "type": "type",
    },
)
class NodeSetSpecUpdateStrategy:
    def __init__(
        self,
        *,
        rolling_update: typing.Optional[typing.Union["NodeSetSpecUpdateStrategyRollingUpdate", typing.Dict[builtins.str, typing.Any]]] = None,
        scheduled_update: typing.Optional[typing.Union["NodeSetSpecUpdateStrategyScheduledUpdate", typing.Dict[builtins.str, typing.Any]]] = None,
        type: typing.Optional["NodeSetSpecUpdateStrategyType"] = None,
    ) -> None:
        '''updateStrategy indicates the NodeSetUpdateStrategy that will be employed to update Pods in the NodeSet when a revision is made to Template.

        :param rolling_update: RollingUpdate is used to communicate parameters when Type is RollingUpdateNodeSetStrategyType.
        :param scheduled_update: scheduledUpdate describes the schedule on which NodeSet pods are to be updated.
        :param type: Type indicates the type of the NodeSetUpdateStrategy. One of: RollingUpdate; OnDelete; ScheduledUpdate. Default is RollingUpdate. Default: RollingUpdate.

        :schema: NodeSetSpecUpdateStrategy
        '''
        if isinstance(rolling_update, dict):
            rolling_update = NodeSetSpecUpdateStrategyRollingUpdate(**rolling_update)
        if isinstance(scheduled_update, dict):
            scheduled_update = NodeSetSpecUpdateStrategyScheduledUpdate(**scheduled_update)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__ee2f40fc26ff34aa00245227e0b1db8e1b0af66f6aa46497aef0f2dfcedf88db)
            check_type(argname="argument rolling_update", value=rolling_update, expected_type=type_hints["rolling_update"])
            check_type(argname="argument scheduled_update", value=scheduled_update, expected_type=type_hints["scheduled_update"])
            check_type(argname="argument type", value=type, expected_type=type_hints["type"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if rolling_update is not None:
            self._values["rolling_update"] = rolling_update
        if scheduled_update is not None:
            self._values["scheduled_update"] = scheduled_update
        if type is not None:
            self._values["type"] = type

    @builtins.property
    def rolling_update(
        self,
    ) -> typing.Optional["NodeSetSpecUpdateStrategyRollingUpdate"]:
        '''RollingUpdate is used to communicate parameters when Type is RollingUpdateNodeSetStrategyType.

        :schema: NodeSetSpecUpdateStrategy#rollingUpdate
        '''
        result = self._values.get("rolling_update")
        return typing.cast(typing.Optional["NodeSetSpecUpdateStrategyRollingUpdate"], result)

    @builtins.property
    def scheduled_update(
        self,
    ) -> typing.Optional["NodeSetSpecUpdateStrategyScheduledUpdate"]:
        '''scheduledUpdate describes the schedule on which NodeSet pods are to be updated.

        :schema: NodeSetSpecUpdateStrategy#scheduledUpdate
        '''
        result = self._values.get("scheduled_update")
        return typing.cast(typing.Optional["NodeSetSpecUpdateStrategyScheduledUpdate"], result)

    @builtins.property
    def type(self) -> typing.Optional["NodeSetSpecUpdateStrategyType"]:
        '''Type indicates the type of the NodeSetUpdateStrategy.

        One of: RollingUpdate; OnDelete; ScheduledUpdate.
        Default is RollingUpdate.

        :default: RollingUpdate.

        :schema: NodeSetSpecUpdateStrategy#type
        '''
        result = self._values.get("type")
        return typing.cast(typing.Optional["NodeSetSpecUpdateStrategyType"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "NodeSetSpecUpdateStrategy(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.NodeSetSpecUpdateStrategyRollingUpdate",
    jsii_struct_bases=[],
    name_mapping={"max_unavailable": "maxUnavailable"},
)
class NodeSetSpecUpdateStrategyRollingUpdate:
    def __init__(
        self,
        *,
        max_unavailable: typing.Optional["NodeSetSpecUpdateStrategyRollingUpdateMaxUnavailable"] = None,
    ) -> None:
        '''RollingUpdate is used to communicate parameters when Type is RollingUpdateNodeSetStrategyType.

        :param max_unavailable: The maximum number of pods that can be unavailable during the update. Value can be an absolute number (ex: 5) or a percentage of desired pods (ex: 10%). Absolute number is calculated from percentage by rounding up. This can not be 0. Defaults to 25%. Default: 25%.

        :schema: NodeSetSpecUpdateStrategyRollingUpdate
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__2590f378c87874cb6a757974881b33c92deb5d3908569827de52f3399c566747)
            check_type(argname="argument max_unavailable", value=max_unavailable, expected_type=type_hints["max_unavailable"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if max_unavailable is not None:
            self._values["max_unavailable"] = max_unavailable

    @builtins.property
    def max_unavailable(
        self,
    ) -> typing.Optional["NodeSetSpecUpdateStrategyRollingUpdateMaxUnavailable"]:
        '''The maximum number of pods that can be unavailable during the update.

        Value can be an absolute number (ex: 5) or a percentage of desired pods (ex: 10%).
        Absolute number is calculated from percentage by rounding up. This can not be 0.
        Defaults to 25%.

        :default: 25%.

        :schema: NodeSetSpecUpdateStrategyRollingUpdate#maxUnavailable
        '''
        result = self._values.get("max_unavailable")
        return typing.cast(typing.Optional["NodeSetSpecUpdateStrategyRollingUpdateMaxUnavailable"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "NodeSetSpecUpdateStrategyRollingUpdate(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class NodeSetSpecUpdateStrategyRollingUpdateMaxUnavailable(
    metaclass=jsii.JSIIMeta,
    jsii_type="netslurmslinky.NodeSetSpecUpdateStrategyRollingUpdateMaxUnavailable",
):
    '''The maximum number of pods that can be unavailable during the update.

    Value can be an absolute number (ex: 5) or a percentage of desired pods (ex: 10%).
    Absolute number is calculated from percentage by rounding up. This can not be 0.
    Defaults to 25%.

    :default: 25%.

    :schema: NodeSetSpecUpdateStrategyRollingUpdateMaxUnavailable
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(
        cls,
        value: jsii.Number,
    ) -> "NodeSetSpecUpdateStrategyRollingUpdateMaxUnavailable":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__d9da3aa9c11e5d434d468bec5e372df908df97995e6ab588f4e8f7b2e3810873)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("NodeSetSpecUpdateStrategyRollingUpdateMaxUnavailable", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(
        cls,
        value: builtins.str,
    ) -> "NodeSetSpecUpdateStrategyRollingUpdateMaxUnavailable":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__ac5429e1c55e5b40f6b05a6d99753cda3852b40018bb589b978056caf7430e65)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("NodeSetSpecUpdateStrategyRollingUpdateMaxUnavailable", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


@jsii.data_type(
    jsii_type="netslurmslinky.NodeSetSpecUpdateStrategyScheduledUpdate",
    jsii_struct_bases=[],
    name_mapping={"duration": "duration", "flags": "flags", "start_time": "startTime"},
)
class NodeSetSpecUpdateStrategyScheduledUpdate:
    def __init__(
        self,
        *,
        duration: typing.Optional[builtins.str] = None,
        flags: typing.Optional[typing.Sequence[builtins.str]] = None,
        start_time: typing.Optional[datetime.datetime] = None,
    ) -> None:
        '''scheduledUpdate describes the schedule on which NodeSet pods are to be updated.

        :param duration: The duration for which NodeSet updates should be conducted. Ref: https://pkg.go.dev/time#ParseDuration Ref: https://slurm.schedmd.com/scontrol.html#OPT_Duration
        :param flags: List of additional flags to append to the Slurm reservation managed by the operator to coordinate scheduled pod updates. Ref: https://slurm.schedmd.com/scontrol.html#OPT_Flags
        :param start_time: An RFC3339 timestamp at which to begin NodeSet updates. Ref: https://datatracker.ietf.org/doc/html/rfc3339#section-5.8 Ref: https://slurm.schedmd.com/scontrol.html#OPT_StartTime_1

        :schema: NodeSetSpecUpdateStrategyScheduledUpdate
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__24b745b07d9187884d268f6d9174b85744b675f7b471ba8e1f583c64d4d6342c)
            check_type(argname="argument duration", value=duration, expected_type=type_hints["duration"])
            check_type(argname="argument flags", value=flags, expected_type=type_hints["flags"])
            check_type(argname="argument start_time", value=start_time, expected_type=type_hints["start_time"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if duration is not None:
            self._values["duration"] = duration
        if flags is not None:
            self._values["flags"] = flags
        if start_time is not None:
            self._values["start_time"] = start_time

    @builtins.property
    def duration(self) -> typing.Optional[builtins.str]:
        '''The duration for which NodeSet updates should be conducted.

        Ref: https://pkg.go.dev/time#ParseDuration
        Ref: https://slurm.schedmd.com/scontrol.html#OPT_Duration

        :schema: NodeSetSpecUpdateStrategyScheduledUpdate#duration
        '''
        result = self._values.get("duration")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def flags(self) -> typing.Optional[typing.List[builtins.str]]:
        '''List of additional flags to append to the Slurm reservation managed by the operator to coordinate scheduled pod updates.

        Ref: https://slurm.schedmd.com/scontrol.html#OPT_Flags

        :schema: NodeSetSpecUpdateStrategyScheduledUpdate#flags
        '''
        result = self._values.get("flags")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    @builtins.property
    def start_time(self) -> typing.Optional[datetime.datetime]:
        '''An RFC3339 timestamp at which to begin NodeSet updates.

        Ref: https://datatracker.ietf.org/doc/html/rfc3339#section-5.8
        Ref: https://slurm.schedmd.com/scontrol.html#OPT_StartTime_1

        :schema: NodeSetSpecUpdateStrategyScheduledUpdate#startTime
        '''
        result = self._values.get("start_time")
        return typing.cast(typing.Optional[datetime.datetime], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "NodeSetSpecUpdateStrategyScheduledUpdate(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(jsii_type="netslurmslinky.NodeSetSpecUpdateStrategyType")
class NodeSetSpecUpdateStrategyType(enum.Enum):
    '''Type indicates the type of the NodeSetUpdateStrategy.

    One of: RollingUpdate; OnDelete; ScheduledUpdate.
    Default is RollingUpdate.

    :default: RollingUpdate.

    :schema: NodeSetSpecUpdateStrategyType
    '''

    ROLLING_UPDATE = "ROLLING_UPDATE"
    '''RollingUpdate.'''
    ON_DELETE = "ON_DELETE"
    '''OnDelete.'''
    SCHEDULED_UPDATE = "SCHEDULED_UPDATE"
    '''ScheduledUpdate.'''


class RestApi(
    _cdk8s_d3d9af27.ApiObject,
    metaclass=jsii.JSIIMeta,
    jsii_type="netslurmslinky.RestApi",
):
    '''Restapi is the Schema for the restapis API.

    :schema: RestApi
    '''

    def __init__(
        self,
        scope: "_constructs_77d1e7e8.Construct",
        id: builtins.str,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["RestApiSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Defines a "RestApi" API object.

        :param scope: the scope in which to define this object.
        :param id: a scope-local name for the object.
        :param metadata: 
        :param spec: RestApiSpec defines the desired state of RestApi.
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__22d98aade7ded2c38cbc0faa2c03226dffb8f01d62957011312add2d0ce9adcb)
            check_type(argname="argument scope", value=scope, expected_type=type_hints["scope"])
            check_type(argname="argument id", value=id, expected_type=type_hints["id"])
        props = RestApiProps(metadata=metadata, spec=spec)

        jsii.create(self.__class__, self, [scope, id, props])

    @jsii.member(jsii_name="manifest")
    @builtins.classmethod
    def manifest(
        cls,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["RestApiSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> typing.Any:
        '''Renders a Kubernetes manifest for "RestApi".

        This can be used to inline resource manifests inside other objects (e.g. as templates).

        :param metadata: 
        :param spec: RestApiSpec defines the desired state of RestApi.
        '''
        props = RestApiProps(metadata=metadata, spec=spec)

        return typing.cast(typing.Any, jsii.sinvoke(cls, "manifest", [props]))

    @jsii.member(jsii_name="toJson")
    def to_json(self) -> typing.Any:
        '''Renders the object to Kubernetes JSON.'''
        return typing.cast(typing.Any, jsii.invoke(self, "toJson", []))

    @jsii.python.classproperty
    @jsii.member(jsii_name="GVK")
    def GVK(cls) -> "_cdk8s_d3d9af27.GroupVersionKind":
        '''Returns the apiVersion and kind for "RestApi".'''
        return typing.cast("_cdk8s_d3d9af27.GroupVersionKind", jsii.sget(cls, "GVK"))


@jsii.data_type(
    jsii_type="netslurmslinky.RestApiProps",
    jsii_struct_bases=[],
    name_mapping={"metadata": "metadata", "spec": "spec"},
)
class RestApiProps:
    def __init__(
        self,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["RestApiSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Restapi is the Schema for the restapis API.

        :param metadata: 
        :param spec: RestApiSpec defines the desired state of RestApi.

        :schema: RestApi
        '''
        if isinstance(metadata, dict):
            metadata = _cdk8s_d3d9af27.ApiObjectMetadata(**metadata)
        if isinstance(spec, dict):
            spec = RestApiSpec(**spec)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__01f037d06d50ada80c30972fbaff2149df6ec25552adb3d06c04bc6558c8759b)
            check_type(argname="argument metadata", value=metadata, expected_type=type_hints["metadata"])
            check_type(argname="argument spec", value=spec, expected_type=type_hints["spec"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if metadata is not None:
            self._values["metadata"] = metadata
        if spec is not None:
            self._values["spec"] = spec

    @builtins.property
    def metadata(self) -> typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"]:
        '''
        :schema: RestApi#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"], result)

    @builtins.property
    def spec(self) -> typing.Optional["RestApiSpec"]:
        '''RestApiSpec defines the desired state of RestApi.

        :schema: RestApi#spec
        '''
        result = self._values.get("spec")
        return typing.cast(typing.Optional["RestApiSpec"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "RestApiProps(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.RestApiSpec",
    jsii_struct_bases=[],
    name_mapping={
        "controller_ref": "controllerRef",
        "replicas": "replicas",
        "service": "service",
        "slurmrestd": "slurmrestd",
        "template": "template",
    },
)
class RestApiSpec:
    def __init__(
        self,
        *,
        controller_ref: typing.Union["RestApiSpecControllerRef", typing.Dict[builtins.str, typing.Any]],
        replicas: typing.Optional[jsii.Number] = None,
        service: typing.Optional[typing.Union["RestApiSpecService", typing.Dict[builtins.str, typing.Any]]] = None,
        slurmrestd: typing.Any = None,
        template: typing.Optional[typing.Union["RestApiSpecTemplate", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''RestApiSpec defines the desired state of RestApi.

        :param controller_ref: controllerRef is a reference to the Controller CR to which this has membership.
        :param replicas: replicas is the desired number of replicas. If unspecified, defaults to 1.
        :param service: Service defines a template for a Kubernetes Service object.
        :param slurmrestd: The slurmrestd container configuration. See corev1.Container spec. Ref: https://github.com/kubernetes/api/blob/master/core/v1/types.go#L2885
        :param template: Template is the object that describes the pod that will be created if insufficient replicas are detected. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#pod-template

        :schema: RestApiSpec
        '''
        if isinstance(controller_ref, dict):
            controller_ref = RestApiSpecControllerRef(**controller_ref)
        if isinstance(service, dict):
            service = RestApiSpecService(**service)
        if isinstance(template, dict):
            template = RestApiSpecTemplate(**template)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__5e04b201f212096c3414e97893b1200c72344867da25e423399244c748823d80)
            check_type(argname="argument controller_ref", value=controller_ref, expected_type=type_hints["controller_ref"])
            check_type(argname="argument replicas", value=replicas, expected_type=type_hints["replicas"])
            check_type(argname="argument service", value=service, expected_type=type_hints["service"])
            check_type(argname="argument slurmrestd", value=slurmrestd, expected_type=type_hints["slurmrestd"])
            check_type(argname="argument template", value=template, expected_type=type_hints["template"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "controller_ref": controller_ref,
        }
        if replicas is not None:
            self._values["replicas"] = replicas
        if service is not None:
            self._values["service"] = service
        if slurmrestd is not None:
            self._values["slurmrestd"] = slurmrestd
        if template is not None:
            self._values["template"] = template

    @builtins.property
    def controller_ref(self) -> "RestApiSpecControllerRef":
        '''controllerRef is a reference to the Controller CR to which this has membership.

        :schema: RestApiSpec#controllerRef
        '''
        result = self._values.get("controller_ref")
        assert result is not None, "Required property 'controller_ref' is missing"
        return typing.cast("RestApiSpecControllerRef", result)

    @builtins.property
    def replicas(self) -> typing.Optional[jsii.Number]:
        '''replicas is the desired number of replicas.

        If unspecified, defaults to 1.

        :schema: RestApiSpec#replicas
        '''
        result = self._values.get("replicas")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def service(self) -> typing.Optional["RestApiSpecService"]:
        '''Service defines a template for a Kubernetes Service object.

        :schema: RestApiSpec#service
        '''
        result = self._values.get("service")
        return typing.cast(typing.Optional["RestApiSpecService"], result)

    @builtins.property
    def slurmrestd(self) -> typing.Any:
        '''The slurmrestd container configuration.

        See corev1.Container spec.
        Ref: https://github.com/kubernetes/api/blob/master/core/v1/types.go#L2885

        :schema: RestApiSpec#slurmrestd
        '''
        result = self._values.get("slurmrestd")
        return typing.cast(typing.Any, result)

    @builtins.property
    def template(self) -> typing.Optional["RestApiSpecTemplate"]:
        '''Template is the object that describes the pod that will be created if insufficient replicas are detected.

        More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#pod-template

        :schema: RestApiSpec#template
        '''
        result = self._values.get("template")
        return typing.cast(typing.Optional["RestApiSpecTemplate"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "RestApiSpec(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.RestApiSpecControllerRef",
    jsii_struct_bases=[],
    name_mapping={"name": "name"},
)
class RestApiSpecControllerRef:
    def __init__(self, *, name: typing.Optional[builtins.str] = None) -> None:
        '''controllerRef is a reference to the Controller CR to which this has membership.

        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: RestApiSpecControllerRef
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__94161abff8d7a7174996a025e0bc74b6d1368ecd6eb2f2e87cd0d4b050f28768)
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if name is not None:
            self._values["name"] = name

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: RestApiSpecControllerRef#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "RestApiSpecControllerRef(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.RestApiSpecService",
    jsii_struct_bases=[],
    name_mapping={
        "metadata": "metadata",
        "node_port": "nodePort",
        "port": "port",
        "spec": "spec",
    },
)
class RestApiSpecService:
    def __init__(
        self,
        *,
        metadata: typing.Optional[typing.Union["RestApiSpecServiceMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        node_port: typing.Optional[jsii.Number] = None,
        port: typing.Optional[jsii.Number] = None,
        spec: typing.Any = None,
    ) -> None:
        '''Service defines a template for a Kubernetes Service object.

        :param metadata: Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
        :param node_port: The port on each node on which this service is exposed when type is NodePort or LoadBalancer. Usually assigned by the system. If a value is specified, in-range, and not in use it will be used, otherwise the operation will fail. If not specified, a port will be allocated if this Service requires one. If this field is specified when creating a Service which does not need it, creation will fail.
        :param port: The external service port number.
        :param spec: ServiceSpec describes the attributes that a user creates on a service.

        :schema: RestApiSpecService
        '''
        if isinstance(metadata, dict):
            metadata = RestApiSpecServiceMetadata(**metadata)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__8dfeaf9c66002c928381fc56629126e79c7ae4b0cbd830151670007bf03af44b)
            check_type(argname="argument metadata", value=metadata, expected_type=type_hints["metadata"])
            check_type(argname="argument node_port", value=node_port, expected_type=type_hints["node_port"])
            check_type(argname="argument port", value=port, expected_type=type_hints["port"])
            check_type(argname="argument spec", value=spec, expected_type=type_hints["spec"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if metadata is not None:
            self._values["metadata"] = metadata
        if node_port is not None:
            self._values["node_port"] = node_port
        if port is not None:
            self._values["port"] = port
        if spec is not None:
            self._values["spec"] = spec

    @builtins.property
    def metadata(self) -> typing.Optional["RestApiSpecServiceMetadata"]:
        '''Standard object's metadata.

        More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata

        :schema: RestApiSpecService#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["RestApiSpecServiceMetadata"], result)

    @builtins.property
    def node_port(self) -> typing.Optional[jsii.Number]:
        '''The port on each node on which this service is exposed when type is NodePort or LoadBalancer.

        Usually assigned by the system. If a value is
        specified, in-range, and not in use it will be used, otherwise the
        operation will fail.  If not specified, a port will be allocated if this
        Service requires one.  If this field is specified when creating a
        Service which does not need it, creation will fail.

        :schema: RestApiSpecService#nodePort
        '''
        result = self._values.get("node_port")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def port(self) -> typing.Optional[jsii.Number]:
        '''The external service port number.

        :schema: RestApiSpecService#port
        '''
        result = self._values.get("port")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def spec(self) -> typing.Any:
        '''ServiceSpec describes the attributes that a user creates on a service.

        :schema: RestApiSpecService#spec
        '''
        result = self._values.get("spec")
        return typing.cast(typing.Any, result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "RestApiSpecService(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.RestApiSpecServiceMetadata",
    jsii_struct_bases=[],
    name_mapping={"annotations": "annotations", "labels": "labels"},
)
class RestApiSpecServiceMetadata:
    def __init__(
        self,
        *,
        annotations: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
        labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    ) -> None:
        '''Standard object's metadata.

        More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata

        :param annotations: Annotations is an unstructured key value map stored with a resource that may be set by external tools to store and retrieve arbitrary metadata. They are not queryable and should be preserved when modifying objects. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/annotations
        :param labels: Map of string keys and values that can be used to organize and categorize (scope and select) objects. May match selectors of replication controllers and services. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels

        :schema: RestApiSpecServiceMetadata
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__63719793bbcb642c7f826de8174a02b11509a4c7fa138e744ceeae5f0a1c89bd)
            check_type(argname="argument annotations", value=annotations, expected_type=type_hints["annotations"])
            check_type(argname="argument labels", value=labels, expected_type=type_hints["labels"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if annotations is not None:
            self._values["annotations"] = annotations
        if labels is not None:
            self._values["labels"] = labels

    @builtins.property
    def annotations(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''Annotations is an unstructured key value map stored with a resource that may be set by external tools to store and retrieve arbitrary metadata.

        They are not
        queryable and should be preserved when modifying objects.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/annotations

        :schema: RestApiSpecServiceMetadata#annotations
        '''
        result = self._values.get("annotations")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    @builtins.property
    def labels(self) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''Map of string keys and values that can be used to organize and categorize (scope and select) objects.

        May match selectors of replication controllers
        and services.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels

        :schema: RestApiSpecServiceMetadata#labels
        '''
        result = self._values.get("labels")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "RestApiSpecServiceMetadata(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.RestApiSpecTemplate",
    jsii_struct_bases=[],
    name_mapping={"metadata": "metadata", "spec": "spec"},
)
class RestApiSpecTemplate:
    def __init__(
        self,
        *,
        metadata: typing.Optional[typing.Union["RestApiSpecTemplateMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Any = None,
    ) -> None:
        '''Template is the object that describes the pod that will be created if insufficient replicas are detected.

        More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#pod-template

        :param metadata: Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
        :param spec: PodSpec is a description of a pod.

        :schema: RestApiSpecTemplate
        '''
        if isinstance(metadata, dict):
            metadata = RestApiSpecTemplateMetadata(**metadata)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__dbcb04935cff00bf6ad129792abbc45015d005cbf6196eddca0f8de072f8cbaa)
            check_type(argname="argument metadata", value=metadata, expected_type=type_hints["metadata"])
            check_type(argname="argument spec", value=spec, expected_type=type_hints["spec"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if metadata is not None:
            self._values["metadata"] = metadata
        if spec is not None:
            self._values["spec"] = spec

    @builtins.property
    def metadata(self) -> typing.Optional["RestApiSpecTemplateMetadata"]:
        '''Standard object's metadata.

        More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata

        :schema: RestApiSpecTemplate#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["RestApiSpecTemplateMetadata"], result)

    @builtins.property
    def spec(self) -> typing.Any:
        '''PodSpec is a description of a pod.

        :schema: RestApiSpecTemplate#spec
        '''
        result = self._values.get("spec")
        return typing.cast(typing.Any, result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "RestApiSpecTemplate(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="netslurmslinky.RestApiSpecTemplateMetadata",
    jsii_struct_bases=[],
    name_mapping={"annotations": "annotations", "labels": "labels"},
)
class RestApiSpecTemplateMetadata:
    def __init__(
        self,
        *,
        annotations: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
        labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    ) -> None:
        '''Standard object's metadata.

        More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata

        :param annotations: Annotations is an unstructured key value map stored with a resource that may be set by external tools to store and retrieve arbitrary metadata. They are not queryable and should be preserved when modifying objects. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/annotations
        :param labels: Map of string keys and values that can be used to organize and categorize (scope and select) objects. May match selectors of replication controllers and services. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels

        :schema: RestApiSpecTemplateMetadata
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__5f0b5477de9c9f5d023ceecd9d5e2da517f37e0e027ac99757bf85e132932bf7)
            check_type(argname="argument annotations", value=annotations, expected_type=type_hints["annotations"])
            check_type(argname="argument labels", value=labels, expected_type=type_hints["labels"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if annotations is not None:
            self._values["annotations"] = annotations
        if labels is not None:
            self._values["labels"] = labels

    @builtins.property
    def annotations(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''Annotations is an unstructured key value map stored with a resource that may be set by external tools to store and retrieve arbitrary metadata.

        They are not
        queryable and should be preserved when modifying objects.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/annotations

        :schema: RestApiSpecTemplateMetadata#annotations
        '''
        result = self._values.get("annotations")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    @builtins.property
    def labels(self) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''Map of string keys and values that can be used to organize and categorize (scope and select) objects.

        May match selectors of replication controllers
        and services.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels

        :schema: RestApiSpecTemplateMetadata#labels
        '''
        result = self._values.get("labels")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "RestApiSpecTemplateMetadata(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


__all__ = [
    "Accounting",
    "AccountingProps",
    "AccountingSpec",
    "AccountingSpecExternalConfig",
    "AccountingSpecJwksKeyRef",
    "AccountingSpecJwtHs256KeyRef",
    "AccountingSpecJwtKeyRef",
    "AccountingSpecService",
    "AccountingSpecServiceMetadata",
    "AccountingSpecSlurmKeyRef",
    "AccountingSpecStorageConfig",
    "AccountingSpecStorageConfigPasswordKeyRef",
    "AccountingSpecTemplate",
    "AccountingSpecTemplateMetadata",
    "Controller",
    "ControllerProps",
    "ControllerSpec",
    "ControllerSpecAccountingRef",
    "ControllerSpecConfigFileRefs",
    "ControllerSpecEpilogScriptRefs",
    "ControllerSpecEpilogSlurmctldScriptRefs",
    "ControllerSpecExternalConfig",
    "ControllerSpecJwksKeyRef",
    "ControllerSpecJwtHs256KeyRef",
    "ControllerSpecJwtKeyRef",
    "ControllerSpecMetrics",
    "ControllerSpecMetricsServiceMonitor",
    "ControllerSpecMetricsServiceMonitorEndpoints",
    "ControllerSpecPersistence",
    "ControllerSpecPersistenceDataSource",
    "ControllerSpecPersistenceDataSourceRef",
    "ControllerSpecPersistenceResources",
    "ControllerSpecPersistenceResourcesLimits",
    "ControllerSpecPersistenceResourcesRequests",
    "ControllerSpecPersistenceSelector",
    "ControllerSpecPersistenceSelectorMatchExpressions",
    "ControllerSpecPrologScriptRefs",
    "ControllerSpecPrologSlurmctldScriptRefs",
    "ControllerSpecService",
    "ControllerSpecServiceMetadata",
    "ControllerSpecSlurmKeyRef",
    "ControllerSpecTemplate",
    "ControllerSpecTemplateMetadata",
    "LoginSet",
    "LoginSetProps",
    "LoginSetSpec",
    "LoginSetSpecControllerRef",
    "LoginSetSpecService",
    "LoginSetSpecServiceMetadata",
    "LoginSetSpecSssdConfRef",
    "LoginSetSpecStrategy",
    "LoginSetSpecStrategyRollingUpdate",
    "LoginSetSpecStrategyRollingUpdateMaxSurge",
    "LoginSetSpecStrategyRollingUpdateMaxUnavailable",
    "LoginSetSpecTemplate",
    "LoginSetSpecTemplateMetadata",
    "NodeSet",
    "NodeSetProps",
    "NodeSetSpec",
    "NodeSetSpecControllerRef",
    "NodeSetSpecPartition",
    "NodeSetSpecPersistentVolumeClaimRetentionPolicy",
    "NodeSetSpecPersistentVolumeClaimRetentionPolicyWhenDeleted",
    "NodeSetSpecPersistentVolumeClaimRetentionPolicyWhenScaled",
    "NodeSetSpecPruneSlurmNodeRecords",
    "NodeSetSpecScalingMode",
    "NodeSetSpecSsh",
    "NodeSetSpecSshSssdConfRef",
    "NodeSetSpecTemplate",
    "NodeSetSpecTemplateMetadata",
    "NodeSetSpecUpdateStrategy",
    "NodeSetSpecUpdateStrategyRollingUpdate",
    "NodeSetSpecUpdateStrategyRollingUpdateMaxUnavailable",
    "NodeSetSpecUpdateStrategyScheduledUpdate",
    "NodeSetSpecUpdateStrategyType",
    "RestApi",
    "RestApiProps",
    "RestApiSpec",
    "RestApiSpecControllerRef",
    "RestApiSpecService",
    "RestApiSpecServiceMetadata",
    "RestApiSpecTemplate",
    "RestApiSpecTemplateMetadata",
]

publication.publish()

def _typecheckingstub__55e13ef28be4a6c8ff27aa8d0425a54e77ffdc114ab414c42c27cd47d0efda5f(
    scope: _constructs_77d1e7e8.Construct,
    id: builtins.str,
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[AccountingSpec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__8a613c46686e1f5a4f0ca9074fa3923b9bdf4166301003f357b02d039780b66f(
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[AccountingSpec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__d662e4304a8763059067102a178046382e1117884cb1120442c468fbff776fe9(
    *,
    external: typing.Optional[builtins.bool] = None,
    external_config: typing.Optional[typing.Union[AccountingSpecExternalConfig, typing.Dict[builtins.str, typing.Any]]] = None,
    extra_conf: typing.Optional[builtins.str] = None,
    jwks_key_ref: typing.Optional[typing.Union[AccountingSpecJwksKeyRef, typing.Dict[builtins.str, typing.Any]]] = None,
    jwt_hs256_key_ref: typing.Optional[typing.Union[AccountingSpecJwtHs256KeyRef, typing.Dict[builtins.str, typing.Any]]] = None,
    jwt_key_ref: typing.Optional[typing.Union[AccountingSpecJwtKeyRef, typing.Dict[builtins.str, typing.Any]]] = None,
    service: typing.Optional[typing.Union[AccountingSpecService, typing.Dict[builtins.str, typing.Any]]] = None,
    slurmdbd: typing.Any = None,
    slurm_key_ref: typing.Optional[typing.Union[AccountingSpecSlurmKeyRef, typing.Dict[builtins.str, typing.Any]]] = None,
    storage_config: typing.Optional[typing.Union[AccountingSpecStorageConfig, typing.Dict[builtins.str, typing.Any]]] = None,
    template: typing.Optional[typing.Union[AccountingSpecTemplate, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__bd1fe886bf6d898eb21df8110fc31f71c93f4347dfee1b5bc59552b481fa55b3(
    *,
    host: builtins.str,
    port: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__6243a295e9f40779b9058247fac243676f61410b1ea734c5ce5b94ce38562176(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__9b7a94646f654905636da6b414c8a5143ae79cb2939a3bf958240527404df4e8(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__6e840dc94817bb1d826fa828b3f0f8d0d57955e850c9323e13865134125662d5(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__49c9e3055f6c5ba926ed93c42c0c0955e18f2e9a20374bfeb6cb3451eb85c6ca(
    *,
    metadata: typing.Optional[typing.Union[AccountingSpecServiceMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    node_port: typing.Optional[jsii.Number] = None,
    port: typing.Optional[jsii.Number] = None,
    spec: typing.Any = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__be5d95ea1230ae57b93b0d8a71106602c0708ff91260c4d2f26dc3e86b234477(
    *,
    annotations: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__7c2d7a06ff50b9ddd6232d0f1297fa66dbbeefeb99c1f928cd1dd7c3b8e98e59(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__ed1d83f4ad3bd4398fba12c69af38bc12abf0b48724b0aa7b8b6b3e1babcd783(
    *,
    host: builtins.str,
    password_key_ref: typing.Union[AccountingSpecStorageConfigPasswordKeyRef, typing.Dict[builtins.str, typing.Any]],
    database: typing.Optional[builtins.str] = None,
    port: typing.Optional[jsii.Number] = None,
    username: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__0e9e04eed8c692ee1daec4c6abc086914874d8787a7e201f7342a1e79690def6(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__a8706b6b663af1cc11dc0ae6acf009c4de681d6a141db803e0d1ebab1b057782(
    *,
    metadata: typing.Optional[typing.Union[AccountingSpecTemplateMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Any = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__2aed92b8bb0cd340fe8cfb30ba72449579f31e394f10e266024d6c445d74b5f7(
    *,
    annotations: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__5fb7aab0939669f269b06471aa25035cb203e3787c6d72e40e704e363b1a16f4(
    scope: _constructs_77d1e7e8.Construct,
    id: builtins.str,
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[ControllerSpec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__2418ede1dded9b91c0de395556f79f5ec9a3faa46529a7661c4b8edd0003f4f5(
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[ControllerSpec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__9d2dfa07f9bda322459da53aa35d8e842dd0f96aed2bffb02dc1e05cff74f2d7(
    *,
    accounting_ref: typing.Optional[typing.Union[ControllerSpecAccountingRef, typing.Dict[builtins.str, typing.Any]]] = None,
    cluster_name: typing.Optional[builtins.str] = None,
    config_file_refs: typing.Optional[typing.Sequence[typing.Union[ControllerSpecConfigFileRefs, typing.Dict[builtins.str, typing.Any]]]] = None,
    epilog_script_refs: typing.Optional[typing.Sequence[typing.Union[ControllerSpecEpilogScriptRefs, typing.Dict[builtins.str, typing.Any]]]] = None,
    epilog_slurmctld_script_refs: typing.Optional[typing.Sequence[typing.Union[ControllerSpecEpilogSlurmctldScriptRefs, typing.Dict[builtins.str, typing.Any]]]] = None,
    external: typing.Optional[builtins.bool] = None,
    external_config: typing.Optional[typing.Union[ControllerSpecExternalConfig, typing.Dict[builtins.str, typing.Any]]] = None,
    extra_conf: typing.Optional[builtins.str] = None,
    inplace_reconfigure: typing.Optional[builtins.bool] = None,
    jwks_key_ref: typing.Optional[typing.Union[ControllerSpecJwksKeyRef, typing.Dict[builtins.str, typing.Any]]] = None,
    jwt_hs256_key_ref: typing.Optional[typing.Union[ControllerSpecJwtHs256KeyRef, typing.Dict[builtins.str, typing.Any]]] = None,
    jwt_key_ref: typing.Optional[typing.Union[ControllerSpecJwtKeyRef, typing.Dict[builtins.str, typing.Any]]] = None,
    logfile: typing.Any = None,
    metrics: typing.Optional[typing.Union[ControllerSpecMetrics, typing.Dict[builtins.str, typing.Any]]] = None,
    persistence: typing.Optional[typing.Union[ControllerSpecPersistence, typing.Dict[builtins.str, typing.Any]]] = None,
    prolog_script_refs: typing.Optional[typing.Sequence[typing.Union[ControllerSpecPrologScriptRefs, typing.Dict[builtins.str, typing.Any]]]] = None,
    prolog_slurmctld_script_refs: typing.Optional[typing.Sequence[typing.Union[ControllerSpecPrologSlurmctldScriptRefs, typing.Dict[builtins.str, typing.Any]]]] = None,
    reconfigure: typing.Any = None,
    service: typing.Optional[typing.Union[ControllerSpecService, typing.Dict[builtins.str, typing.Any]]] = None,
    slurmctld: typing.Any = None,
    slurm_key_ref: typing.Optional[typing.Union[ControllerSpecSlurmKeyRef, typing.Dict[builtins.str, typing.Any]]] = None,
    template: typing.Optional[typing.Union[ControllerSpecTemplate, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__affa3f8b99e9c62a880aec8c40cd70e9bd8951cae7548b2a4d8eb135e4cdc24f(
    *,
    name: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__14383b8ae7f79c56468b198a23de3391fd91badb6430a453e04fc5b4ae39eeb2(
    *,
    name: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__1d80ad0faf9f6476101eb87d8ba9f7d1f74972d8760bf720c69afd5f1432565c(
    *,
    name: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__c5e6e5fff8b144b1e51f129a6903a6f818611c761f0f52d072e163996b634022(
    *,
    name: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__f934085ff2fcf428ffb3f451ed985518d543e3dcd4c92285b433fc717d58efab(
    *,
    host: builtins.str,
    port: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__674e9d3141c3868ae402ed0d62bc8b17ba3d10507f8bc3fbc2c53fd63e5645b7(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__99f446787e22cadc773c8b6dc79eeea43ec8a5bed1f93758a2162a25cdc8052e(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__f94844f9a988e9fec0afc14eca14b0b5c430eedf5e5a91690973033c124f29d6(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__5c69d2ca7095682a336d068c3150108567d2579cb49d6757cc294d5486dc87ed(
    *,
    enabled: typing.Optional[builtins.bool] = None,
    service_monitor: typing.Optional[typing.Union[ControllerSpecMetricsServiceMonitor, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__6b6fae9f6e3a53c0592f3f3be0453e05463019578b26f4b2c26689db52c0808e(
    *,
    annotations: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    enabled: typing.Optional[builtins.bool] = None,
    endpoints: typing.Optional[typing.Sequence[typing.Union[ControllerSpecMetricsServiceMonitorEndpoints, typing.Dict[builtins.str, typing.Any]]]] = None,
    interval: typing.Optional[builtins.str] = None,
    labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    scrape_timeout: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__6c4e0d1b5deca833443fc01edd8a35221de2946bce254a82031ac30534719259(
    *,
    path: builtins.str,
    interval: typing.Optional[builtins.str] = None,
    scrape_timeout: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__6a560eb04cfc563a780a645cb26210160adfd4754da58503405778c37cc66e83(
    *,
    enabled: builtins.bool,
    access_modes: typing.Optional[typing.Sequence[builtins.str]] = None,
    data_source: typing.Optional[typing.Union[ControllerSpecPersistenceDataSource, typing.Dict[builtins.str, typing.Any]]] = None,
    data_source_ref: typing.Optional[typing.Union[ControllerSpecPersistenceDataSourceRef, typing.Dict[builtins.str, typing.Any]]] = None,
    existing_claim: typing.Optional[builtins.str] = None,
    resources: typing.Optional[typing.Union[ControllerSpecPersistenceResources, typing.Dict[builtins.str, typing.Any]]] = None,
    selector: typing.Optional[typing.Union[ControllerSpecPersistenceSelector, typing.Dict[builtins.str, typing.Any]]] = None,
    storage_class_name: typing.Optional[builtins.str] = None,
    volume_attributes_class_name: typing.Optional[builtins.str] = None,
    volume_mode: typing.Optional[builtins.str] = None,
    volume_name: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__08919c98a250fce56ea41fa252cc6843bf6c0bc78010fcdd08082f1a1224f86e(
    *,
    kind: builtins.str,
    name: builtins.str,
    api_group: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__cc2e84c29e9ac392a07445195fb5d4a242ded32f8e9c31dcc61848898cd1a9f3(
    *,
    kind: builtins.str,
    name: builtins.str,
    api_group: typing.Optional[builtins.str] = None,
    namespace: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__24d9111caa5ea955865c044538b35f9f3a38cb6fd385f4101232bfd2bc98bb25(
    *,
    limits: typing.Optional[typing.Mapping[builtins.str, ControllerSpecPersistenceResourcesLimits]] = None,
    requests: typing.Optional[typing.Mapping[builtins.str, ControllerSpecPersistenceResourcesRequests]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__c88c89eef4e7335e44650ca8c72e1cbfb82f72e2ed947f1ff29f9592fe0534e1(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__9d8acab59bcba5b74ee23a0fe9e4d61ebd1e27e6adab4f9963dd72affc1b1755(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__bf80c6f9cfef21b2d380f2ee2fd808e7a8145160232b9885748ccf90a6274959(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__bee52f9f0bd828359bd6da5b940a8284a58840a05481a5851d21cbc4b5405247(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__934868725e22129773e41593618b3d05f33d96de9e63b65c86e2619380340c3d(
    *,
    match_expressions: typing.Optional[typing.Sequence[typing.Union[ControllerSpecPersistenceSelectorMatchExpressions, typing.Dict[builtins.str, typing.Any]]]] = None,
    match_labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__2082c4ed272aaf4e344b7f1a23c484e308f7af94690b61e97d84ae15ca32bc6b(
    *,
    key: builtins.str,
    operator: builtins.str,
    values: typing.Optional[typing.Sequence[builtins.str]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__3861bc570d68f74720d53e3d369868693c18f643c80fa3dab71342297bf77402(
    *,
    name: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__c256dbf940a4edd4aae360843adbc0f82c00bcd17222a395c8286ffbffd8e440(
    *,
    name: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__5f01c0f495517f6c260a79c0e8f219e74aad26ed952cfef0931d17e1598f59ab(
    *,
    metadata: typing.Optional[typing.Union[ControllerSpecServiceMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    node_port: typing.Optional[jsii.Number] = None,
    port: typing.Optional[jsii.Number] = None,
    spec: typing.Any = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__10177c85f3396d440d8472f1a4e58ec4762bd82038e16a7f147879fb027e889e(
    *,
    annotations: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__bf2e6e78253f3f33f704c6d33d2af60242479b33d061950e120f22c2a62fb980(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__49649db5b2965c51eb88b598b7f619178fe3a95e209c1674c078f93d90c408fa(
    *,
    metadata: typing.Optional[typing.Union[ControllerSpecTemplateMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Any = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__5ee105fdd61f6f93ba7843e3d3fa0440ca129adeeb08825834acd43b0d058466(
    *,
    annotations: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__495059da0b5e521748af0d56f8d365ec9d23f9c08c8296cc8adda213c58de4b9(
    scope: _constructs_77d1e7e8.Construct,
    id: builtins.str,
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[LoginSetSpec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__dcd2d307a9574362a24c40d8db70fda554d3e77bfaabee93287b8a65e24ec556(
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[LoginSetSpec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__91c75a0172d1bf11de4ab7ed92328e67e73659be14590f93dc6d48e19a4363e8(
    *,
    controller_ref: typing.Union[LoginSetSpecControllerRef, typing.Dict[builtins.str, typing.Any]],
    sssd_conf_ref: typing.Union[LoginSetSpecSssdConfRef, typing.Dict[builtins.str, typing.Any]],
    extra_sshd_config: typing.Optional[builtins.str] = None,
    initconf: typing.Any = None,
    login: typing.Any = None,
    replicas: typing.Optional[jsii.Number] = None,
    root_ssh_authorized_keys: typing.Optional[builtins.str] = None,
    service: typing.Optional[typing.Union[LoginSetSpecService, typing.Dict[builtins.str, typing.Any]]] = None,
    strategy: typing.Optional[typing.Union[LoginSetSpecStrategy, typing.Dict[builtins.str, typing.Any]]] = None,
    template: typing.Optional[typing.Union[LoginSetSpecTemplate, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__7f09232bfac36df663de91ccbb25d056cd23754d7da465397d550b291688ea1e(
    *,
    name: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__8a15619e528c40cd8455824403529f7e48e8a6ddd5f0661ccc33508a0017b79b(
    *,
    metadata: typing.Optional[typing.Union[LoginSetSpecServiceMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    node_port: typing.Optional[jsii.Number] = None,
    port: typing.Optional[jsii.Number] = None,
    spec: typing.Any = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__0b3442e4119e0231c5aaf38c5f80b0b7f68c48e76080d8c9089b0b256a90827b(
    *,
    annotations: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__d6779d15ef157d4f4ac08b7d4f2c0e1a9880c0e3f9f8ebf6417703831647a9e9(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__7c07ecfb399b12e8cdb58139e079dffb721106ffe5ab0dfc5109cfb5800e3cc5(
    *,
    rolling_update: typing.Optional[typing.Union[LoginSetSpecStrategyRollingUpdate, typing.Dict[builtins.str, typing.Any]]] = None,
    type: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__fcaba4464ec2258f360cf530ec21112831abdb00be123e89e4dafd7bc754c42a(
    *,
    max_surge: typing.Optional[LoginSetSpecStrategyRollingUpdateMaxSurge] = None,
    max_unavailable: typing.Optional[LoginSetSpecStrategyRollingUpdateMaxUnavailable] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__59440c362db49173f3f26159ec8ff80465d529db5507002cc5d46bb9fa91f7b5(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__f5352ed5bbcaaa81ac33cb8d7663bd80ce0f1f9c70b0f24842f6e957d3443dc3(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__df88d0762ead917f4d24321f2580c197c15c72f26bc80971fe9ca6ba04d999fb(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__21d015e0f9d11038f4d1ac60ab830e80e3c4ad9b16a39ed2784e8cf36ea361cd(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__8cb99dfd476160e79d592ac6f8b0dac4f836da8670060fa9e50fb80b05420009(
    *,
    metadata: typing.Optional[typing.Union[LoginSetSpecTemplateMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Any = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__43a7a52c0b5382089f4b1c87cc967fe218088b1692957ae448691c7d1c26ef32(
    *,
    annotations: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__7b4cbb3038264832683e7d3965015557ee1fe69b38a0f42062208aed99d1b789(
    scope: _constructs_77d1e7e8.Construct,
    id: builtins.str,
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[NodeSetSpec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__01ebdaf1f9fc9dfcb4b897b4fcab3ef75b10f83e284363b436d2d6ff0f9972a3(
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[NodeSetSpec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__524ccb107afae0ace906ed8e0fd4eac4ff2fcebac06ec2f047ae17a0228b6531(
    *,
    controller_ref: typing.Union[NodeSetSpecControllerRef, typing.Dict[builtins.str, typing.Any]],
    extra_conf: typing.Optional[builtins.str] = None,
    logfile: typing.Any = None,
    min_ready_seconds: typing.Optional[jsii.Number] = None,
    ordinal_padding: typing.Optional[jsii.Number] = None,
    oversubscribe_node: typing.Optional[builtins.bool] = None,
    partition: typing.Optional[typing.Union[NodeSetSpecPartition, typing.Dict[builtins.str, typing.Any]]] = None,
    persistent_volume_claim_retention_policy: typing.Optional[typing.Union[NodeSetSpecPersistentVolumeClaimRetentionPolicy, typing.Dict[builtins.str, typing.Any]]] = None,
    pin_to_node: typing.Optional[builtins.bool] = None,
    prune_slurm_node_records: typing.Optional[NodeSetSpecPruneSlurmNodeRecords] = None,
    replicas: typing.Optional[jsii.Number] = None,
    revision_history_limit: typing.Optional[jsii.Number] = None,
    scaling_mode: typing.Optional[NodeSetSpecScalingMode] = None,
    slurmd: typing.Any = None,
    ssh: typing.Optional[typing.Union[NodeSetSpecSsh, typing.Dict[builtins.str, typing.Any]]] = None,
    template: typing.Optional[typing.Union[NodeSetSpecTemplate, typing.Dict[builtins.str, typing.Any]]] = None,
    update_strategy: typing.Optional[typing.Union[NodeSetSpecUpdateStrategy, typing.Dict[builtins.str, typing.Any]]] = None,
    volume_claim_templates: typing.Any = None,
    workload_disruption_protection: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__1a542e588525e68fe95cf748661a98129c5f9da20c66d5fe352dc218c8f4b84d(
    *,
    name: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__292e62f1806577ebfd894e8e8663f509e5ecf93c8689f5be6624107ba39b040a(
    *,
    enabled: builtins.bool,
    config: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__bf86d998dd5b9c257c995287d44c1c33e2fb2d4f2c0496cf4f8a8a2b2075b520(
    *,
    when_deleted: typing.Optional[NodeSetSpecPersistentVolumeClaimRetentionPolicyWhenDeleted] = None,
    when_scaled: typing.Optional[NodeSetSpecPersistentVolumeClaimRetentionPolicyWhenScaled] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__71e813e44f7a9bcb1f5db85abb3da1f06c67a40321b4a3a5ff7629ff4a6de93b(
    *,
    enabled: builtins.bool,
    sssd_conf_ref: typing.Union[NodeSetSpecSshSssdConfRef, typing.Dict[builtins.str, typing.Any]],
    extra_sshd_config: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__766ce51d95eb5360077b0799c973c7572b31508221fb8ec70bf7eb88d51be9c7(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__3f782bff5b9ac157fc6817be0de9dd4fd5225a23c60ab05476169981dbc433a2(
    *,
    metadata: typing.Optional[typing.Union[NodeSetSpecTemplateMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Any = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__d0c00a63796d2953de5c9bd2b44c01e4968f8d04269acb64ab673a43db35c952(
    *,
    annotations: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__ee2f40fc26ff34aa00245227e0b1db8e1b0af66f6aa46497aef0f2dfcedf88db(
    *,
    rolling_update: typing.Optional[typing.Union[NodeSetSpecUpdateStrategyRollingUpdate, typing.Dict[builtins.str, typing.Any]]] = None,
    scheduled_update: typing.Optional[typing.Union[NodeSetSpecUpdateStrategyScheduledUpdate, typing.Dict[builtins.str, typing.Any]]] = None,
    type: typing.Optional[NodeSetSpecUpdateStrategyType] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__2590f378c87874cb6a757974881b33c92deb5d3908569827de52f3399c566747(
    *,
    max_unavailable: typing.Optional[NodeSetSpecUpdateStrategyRollingUpdateMaxUnavailable] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__d9da3aa9c11e5d434d468bec5e372df908df97995e6ab588f4e8f7b2e3810873(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__ac5429e1c55e5b40f6b05a6d99753cda3852b40018bb589b978056caf7430e65(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__24b745b07d9187884d268f6d9174b85744b675f7b471ba8e1f583c64d4d6342c(
    *,
    duration: typing.Optional[builtins.str] = None,
    flags: typing.Optional[typing.Sequence[builtins.str]] = None,
    start_time: typing.Optional[datetime.datetime] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__22d98aade7ded2c38cbc0faa2c03226dffb8f01d62957011312add2d0ce9adcb(
    scope: _constructs_77d1e7e8.Construct,
    id: builtins.str,
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[RestApiSpec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__01f037d06d50ada80c30972fbaff2149df6ec25552adb3d06c04bc6558c8759b(
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[RestApiSpec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__5e04b201f212096c3414e97893b1200c72344867da25e423399244c748823d80(
    *,
    controller_ref: typing.Union[RestApiSpecControllerRef, typing.Dict[builtins.str, typing.Any]],
    replicas: typing.Optional[jsii.Number] = None,
    service: typing.Optional[typing.Union[RestApiSpecService, typing.Dict[builtins.str, typing.Any]]] = None,
    slurmrestd: typing.Any = None,
    template: typing.Optional[typing.Union[RestApiSpecTemplate, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__94161abff8d7a7174996a025e0bc74b6d1368ecd6eb2f2e87cd0d4b050f28768(
    *,
    name: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__8dfeaf9c66002c928381fc56629126e79c7ae4b0cbd830151670007bf03af44b(
    *,
    metadata: typing.Optional[typing.Union[RestApiSpecServiceMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    node_port: typing.Optional[jsii.Number] = None,
    port: typing.Optional[jsii.Number] = None,
    spec: typing.Any = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__63719793bbcb642c7f826de8174a02b11509a4c7fa138e744ceeae5f0a1c89bd(
    *,
    annotations: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__dbcb04935cff00bf6ad129792abbc45015d005cbf6196eddca0f8de072f8cbaa(
    *,
    metadata: typing.Optional[typing.Union[RestApiSpecTemplateMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Any = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__5f0b5477de9c9f5d023ceecd9d5e2da517f37e0e027ac99757bf85e132932bf7(
    *,
    annotations: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
) -> None:
    """Type checking stubs"""
    pass
